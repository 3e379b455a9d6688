// Idempotency-Key on routes. Two ways in, one set of rules (domain/idempotency.ts):
// - `idempotent({ required })`, a middleware after `requireKey(...)`, for writes that move no money
//   (pay-in creation): the record is completed after the handler has committed.
// - `idempotentMoney(c, options, work)`, for writes that move money: the record is completed inside the
//   movement's own transaction (domain/idempotent_money.ts), so a crash cannot make a retry pay twice.
// Either way a key belongs to (merchant, mode of the key), and a replay carries `Idempotent-Replayed: true`.
import type { Context, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Db } from "../../db/mod.ts";
import { AppError } from "../../domain/errors.ts";
import {
  beginIdempotentRequest,
  finishIdempotentRequest,
  type IdempotentRequest,
  requestFingerprint,
  validateIdempotencyKey,
} from "../../domain/idempotency.ts";
import { rememberRefusal, withIdempotentMoney } from "../../domain/idempotent_money.ts";
import type { AppEnv } from "../env.ts";
import { onError } from "../errors.ts";

/** Reads the key and fingerprints the request; undefined when no key was sent (and none is required). */
async function idempotentRequest(
  c: Context<AppEnv>,
  required: boolean,
): Promise<IdempotentRequest | undefined> {
  const key = validateIdempotencyKey(c.req.header("idempotency-key"), required);
  if (!key) return undefined;
  const { merchantId, isSandbox } = c.get("auth");
  // Hono caches the body, so the JSON validator that runs after us still reads it.
  const body = new Uint8Array(await c.req.arrayBuffer());
  const query = new URL(c.req.url).searchParams;
  const fingerprint = await requestFingerprint(c.req.method, c.req.path, query, body);
  return { merchantId, isSandbox, key, fingerprint };
}

function replay(c: Context<AppEnv>, status: number, body: string): Response {
  return c.body(body, status as ContentfulStatusCode, {
    "content-type": "application/json; charset=utf-8",
    "Idempotent-Replayed": "true",
  });
}

export function idempotent(options: { required: boolean }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const request = await idempotentRequest(c, options.required);
    if (!request) return await next();
    const deps = c.get("deps");
    const begun = await beginIdempotentRequest(deps, request);
    if (begun.kind === "replay") return replay(c, begun.status, begun.body);
    // Hono turns a thrown error into c.res through onError before we get control back.
    await next();
    const body = await c.res.clone().text();
    await finishIdempotentRequest(deps, { ...request, status: c.res.status, body });
  };
}

/**
 * Answers a money-moving route: `work` books on the transaction it is given (postJournal(tx, ...)) and
 * returns the `data` of the success envelope, sent with `options.status`. Without a key (when optional)
 * `work` still runs in one transaction. A refusal `work` throws is rendered by the one onError and, when
 * the policy keeps such answers, remembered as the key's outcome.
 */
export async function idempotentMoney<T>(
  c: Context<AppEnv>,
  options: { required: boolean; status: ContentfulStatusCode },
  work: (tx: Db) => Promise<T>,
): Promise<Response> {
  const deps = c.get("deps");
  const request = await idempotentRequest(c, options.required);
  if (!request) return c.json({ success: true, data: await deps.db.tx(work) }, options.status);
  try {
    const answer = await withIdempotentMoney(deps, request, async (tx) => ({
      status: options.status,
      body: JSON.stringify({ success: true, data: await work(tx) }),
    }));
    if (answer.replayed) return replay(c, answer.status, answer.body);
    return c.body(answer.body, answer.status as ContentfulStatusCode, {
      "content-type": "application/json; charset=utf-8",
    });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const res = onError(err, c);
    await rememberRefusal(deps, request, { status: res.status, body: await res.clone().text() });
    return res;
  }
}
