// The provider callbacks' authentication: the X-Provider-Signature over the raw body, checked before the
// input guard and the route's validators read the body (as requireKey and requireAdmin do for theirs).
import type { Context, MiddlewareHandler } from "hono";
import { authenticateProviderCallback, type CallbackSource } from "../../domain/providers/callback_auth.ts";
import type { AppEnv } from "../../http/env.ts";
import { authenticatesFirst, checkStorableInput } from "./input_guard.ts";

/**
 * `sourceOf` names the provider from the path; undefined (a path its parameters' schema refuses) leaves
 * the answer to that schema, which refuses the request before any body is read.
 */
export function requireProviderSignature(
  sourceOf: (c: Context<AppEnv>) => CallbackSource | undefined,
): MiddlewareHandler<AppEnv> {
  return authenticatesFirst<MiddlewareHandler<AppEnv>>(async (c, next) => {
    const source = sourceOf(c);
    if (source) {
      // Hono keeps the text: the handler's parser reads the same bytes afterwards.
      const rawBody = await c.req.text();
      await authenticateProviderCallback(c.get("deps"), source, { headers: c.req.raw.headers, rawBody });
      await checkStorableInput(c);
    }
    await next();
  });
}
