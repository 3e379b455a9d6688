// Authenticates the API key, counts the request against the rate limits, checks the scope, and only then
// looks at what the request carries (the input guard), so a caller without the right key learns nothing.
import type { MiddlewareHandler } from "hono";
import { assertMayList, assertMerchantRead, assertScope, type Scope } from "../../domain/keys/api_keys.ts";
import { authenticateApiKey, presentedKey } from "../../domain/auth.ts";
import { enforceRateLimit } from "../../domain/limits/rate_limit.ts";
import type { AppEnv } from "../../http/env.ts";
import { clientAddress } from "../../http/client_address.ts";
import { authenticatesFirst, checkStorableInput } from "./input_guard.ts";

/**
 * `list` reads many records at once and `merchant` reads what only a merchant needs (statistics, quotes):
 * publishable keys are refused both; a plain `read` of one record gives them its public view.
 */
export function requireKey(
  scope: Scope,
  access: "read" | "write" | "list" | "merchant",
): MiddlewareHandler<AppEnv> {
  return authenticatesFirst<MiddlewareHandler<AppEnv>>(async (c, next) => {
    const deps = c.get("deps");
    const caller = await authenticateApiKey(
      deps,
      presentedKey(c.req.header("x-api-key"), c.req.header("authorization")),
      clientAddress(c),
    );
    const decision = await enforceRateLimit(deps, caller, c.req.method, c.req.path);
    c.header("X-RateLimit-Limit", String(decision.limit));
    c.header("X-RateLimit-Remaining", String(decision.remaining));
    assertScope(caller, scope, access === "write");
    if (access === "list") assertMayList(caller);
    if (access === "merchant") assertMerchantRead(caller);
    c.set("auth", caller);
    await checkStorableInput(c);
    await next();
  });
}
