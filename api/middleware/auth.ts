// Authenticates the API key, counts the request against the rate limits, then checks the scope.
import type { MiddlewareHandler } from "hono";
import { assertScope, type Scope } from "../../domain/api_keys.ts";
import { authenticateApiKey, presentedKey } from "../../domain/auth.ts";
import { enforceRateLimit } from "../../domain/rate_limit.ts";
import type { AppEnv } from "../env.ts";

export function requireKey(scope: Scope, access: "read" | "write"): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const deps = c.get("deps");
    const caller = await authenticateApiKey(
      deps,
      presentedKey(c.req.header("x-api-key"), c.req.header("authorization")),
    );
    const decision = await enforceRateLimit(deps, caller, c.req.method, c.req.path);
    c.header("X-RateLimit-Limit", String(decision.limit));
    c.header("X-RateLimit-Remaining", String(decision.remaining));
    assertScope(caller, scope, access === "write");
    c.set("auth", caller);
    await next();
  };
}
