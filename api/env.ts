// The Hono environment shared by every router: what middleware puts on the context.
import type { ApiKeyAuth } from "../domain/api_keys.ts";
import type { Deps } from "../domain/deps.ts";

export type AppEnv = {
  Variables: {
    deps: Deps;
    requestId: string;
    auth: ApiKeyAuth;
  };
};
