// Idempotency-Key on routes. Two ways in, one set of rules (domain/idempotency.ts):
// - `idempotent({ required })`, a middleware after `requireKey(...)`, for writes that move no money
//   (pay-in creation): the record is completed after the handler has committed.
// - `idempotentMoney(c, options, work)` in a handler, or the `idempotentMoneyRoute({ required })`
//   middleware, for writes that move money: the record is completed inside the movement's own
//   transaction (domain/idempotent_money.ts), so a crash cannot make a retry pay twice.
// Either way a key belongs to (merchant, mode of the key), and a replay carries `Idempotent-Replayed: true`.
import type { Context, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Db } from "../../db/mod.ts";
import type { Deps } from "../../domain/deps.ts";
import { AppError } from "../../domain/errors.ts";
import {
  beginIdempotentRequest,
  finishIdempotentRequest,
  type IdempotentRequest,
  requestFingerprint,
  validateIdempotencyKey,
} from "../../domain/idempotency.ts";
import { rememberRefusal, withIdempotentMoney } from "../../domain/idempotent_money.ts";
import type { AppEnv } from "../../http/env.ts";
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

/**
 * Refuses a missing (when required) or malformed Idempotency-Key. A handler whose domain checks run
 * before `idempotentMoney` (whitelist, AML screening, which may emit `aml.flagged`) calls this first, so
 * a request refused for its key has done nothing.
 */
export function assertIdempotencyKey(c: Context<AppEnv>, options: { required: boolean }): void {
  validateIdempotencyKey(c.req.header("idempotency-key"), options.required);
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
 * Answers a money-moving route: `work` books on the transaction it is given (postJournal(tx, ...), or a
 * domain function called with `txDeps`, the request's deps on that transaction) and returns the `data`
 * of the success envelope, sent with `options.status`. Without a key (when optional) `work` still runs in
 * one transaction. A refusal `work` throws is rendered by the one onError and, when the policy keeps such
 * answers, remembered as the key's outcome.
 */
export async function idempotentMoney<T>(
  c: Context<AppEnv>,
  options: { required: boolean; status: ContentfulStatusCode },
  work: (tx: Db, txDeps: Deps) => Promise<T>,
): Promise<Response> {
  const deps = c.get("deps");
  const request = await idempotentRequest(c, options.required);
  const run = (tx: Db) => work(tx, { ...deps, db: tx });
  if (!request) return c.json({ success: true, data: await deps.db.tx(run) }, options.status);
  try {
    const answer = await withIdempotentMoney(deps, request, async (tx) => ({
      status: options.status,
      body: JSON.stringify({ success: true, data: await run(tx) }),
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

/** Carries a handler's failure out of the transaction, so that everything the handler wrote rolls back. */
class HandlerFailed extends Error {}

/**
 * The same as idempotentMoney, as a middleware in place of `idempotent(...)`: the route's handler runs
 * with `c.get("deps").db` bound to the idempotency transaction, so every domain function it calls with
 * those deps books inside it. A handler that throws rolls everything back (its error is already rendered
 * by onError); a refusal worth keeping is then remembered. The handler must reach the database only
 * through `c.get("deps")`: on the embedded driver anything else would wait on this transaction forever.
 */
export function idempotentMoneyRoute(options: { required: boolean }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const deps = c.get("deps");
    const request = await idempotentRequest(c, options.required);
    const run = async (tx: Db) => {
      c.set("deps", { ...deps, db: tx });
      try {
        await next();
      } finally {
        c.set("deps", deps);
      }
      if (c.error) throw new HandlerFailed();
      return { status: c.res.status, body: await c.res.clone().text() };
    };
    try {
      if (!request) {
        await deps.db.tx(run);
        return;
      }
      const answer = await withIdempotentMoney(deps, request, run);
      if (answer.replayed) return replay(c, answer.status, answer.body);
    } catch (err) {
      if (!(err instanceof HandlerFailed)) throw err;
      // c.res is onError's answer to the handler's error; nothing it did was committed.
      if (request) {
        await rememberRefusal(deps, request, { status: c.res.status, body: await c.res.clone().text() });
      }
    }
  };
}
