// The Hono environment shared by every router: what middleware puts on the context.
import type { Caller } from "../domain/auth.ts";
import type { Deps } from "../domain/deps.ts";
import type { Actor } from "../domain/operators/roles.ts";
import type { ResumedSession } from "../domain/operators/sessions.ts";

export type AppEnv = {
  Variables: {
    deps: Deps;
    requestId: string;
    auth: Caller;
    /** The operator routes' caller: an operator's session or the ADMIN_TOKEN. */
    operator: Actor;
    /** Set when the operator came with a session cookie (not the token). */
    operatorSession?: ResumedSession;
  };
};
