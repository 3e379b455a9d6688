// The Hono environment shared by every router: what middleware puts on the context.
import type { Caller } from "../domain/auth.ts";
import type { Deps } from "../domain/deps.ts";

export type AppEnv = {
  Variables: {
    deps: Deps;
    requestId: string;
    auth: Caller;
  };
};
