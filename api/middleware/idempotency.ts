// Any route can declare `idempotent({ required })` after `requireKey(...)`.
import type { MiddlewareHandler } from "hono";
import {
  beginIdempotentRequest,
  finishIdempotentRequest,
  requestFingerprint,
  validateIdempotencyKey,
} from "../../domain/idempotency.ts";
import type { AppEnv } from "../env.ts";

export function idempotent(options: { required: boolean }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = validateIdempotencyKey(c.req.header("idempotency-key"), options.required);
    if (!key) return await next();
    const deps = c.get("deps");
    const merchantId = c.get("auth").merchantId;
    // Hono caches the body text, so the JSON validator after us still reads it.
    const fingerprint = await requestFingerprint(c.req.method, c.req.path, await c.req.text());
    const begun = await beginIdempotentRequest(deps, { merchantId, key, fingerprint });
    if (begun.kind === "replay") {
      return c.body(begun.body, begun.status as 200, {
        "content-type": "application/json; charset=utf-8",
        "Idempotent-Replayed": "true",
      });
    }
    // Hono turns a thrown error into c.res through onError before we get control back.
    await next();
    const body = await c.res.clone().text();
    await finishIdempotentRequest(deps, { merchantId, key, status: c.res.status, body });
  };
}
