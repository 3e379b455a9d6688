// A test-only money route, in both designs, for the crash test (tests/unit/idempotency_kill_test.ts):
// POST /v1/probe/transfer moves `amount` from the merchant's live USDT wallet to the WORLD account
// through postJournal, under a required Idempotency-Key. Each run books a journal with a fresh
// reference, as a payout would (a new payout id each time), so only idempotency can stop a second move.
import { Hono } from "hono";
import { idempotent, idempotentMoney, idempotentMoneyRoute } from "../../api/middleware/idempotency.ts";
import type { AppEnv } from "../../http/env.ts";
import { onError } from "../../api/errors.ts";
import type { Db } from "../../db/mod.ts";
import type { Caller } from "../../domain/auth.ts";
import type { Deps } from "../../domain/deps.ts";
import { AppError } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { postJournal } from "../../domain/ledger.ts";

export const WORLD_LIVE_TRC20 = "acc_world_live_trc20";

/**
 * `after-commit`: today's middleware, the record completed after the handler committed.
 * `in-transaction`: idempotentMoney in the handler, the record completed in the movement's transaction.
 * `in-transaction-middleware`: the same through the idempotentMoneyRoute middleware.
 */
export type Design = "after-commit" | "in-transaction" | "in-transaction-middleware";

/**
 * Where the route may stop (the crash test kills the process there): `after-money` is between the
 * movement and the completion of the record, the two steps of the after-commit design; `after-commit`
 * is once everything has committed but before the answer leaves.
 */
export type PausePoint = "after-money" | "after-commit" | "none";

export type ProbeOptions = {
  deps: Pick<Deps, "db" | "clock">;
  merchantId: string;
  walletId: string;
  design: Design;
  pauseAt: PausePoint;
  pause: () => Promise<void>;
};

/** `explode: true` throws an unexpected error after booking: the movement must not survive it. */
type TransferBody = { amount?: unknown; explode?: boolean };

async function transfer(db: Db, o: ProbeOptions, body: TransferBody): Promise<{ journalId: string }> {
  const amount = body.amount;
  // Checked inside the work, as a domain function would: a refusal thrown after the key was claimed.
  if (typeof amount !== "string" || !/^\d{1,9}(\.\d{1,6})?$/.test(amount)) {
    throw new AppError("VALIDATION_ERROR", "amount must be a decimal string");
  }
  const booked = await postJournal(db, {
    reference: `probe:${newId("pay")}`,
    kind: "probe_transfer",
    merchantId: o.merchantId,
    isSandbox: false,
    postings: [{ accountId: o.walletId, amount: `-${amount}` }, { accountId: WORLD_LIVE_TRC20, amount }],
  });
  if (!booked.booked) throw new Error("a fresh reference was already booked");
  if (body.explode) throw new Error("crash after the movement (test)");
  if (o.pauseAt === "after-money") await o.pause();
  return { journalId: booked.journalId };
}

export function moneyProbeApp(o: ProbeOptions): Hono<AppEnv> {
  // A bare Hono, not api/app.ts's router: the child process then loads only what this route needs.
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    c.set("deps", o.deps as Deps);
    c.set("requestId", "req_probe");
    c.set("auth", { merchantId: o.merchantId, isSandbox: false } as Caller);
    await next();
  });
  app.onError(onError);
  if (o.design === "after-commit") {
    app.post("/v1/probe/transfer", idempotent({ required: true }), async (c) => {
      const data = await transfer(o.deps.db, o, await c.req.json());
      if (o.pauseAt === "after-commit") await o.pause();
      return c.json({ success: true, data }, 201);
    });
  } else if (o.design === "in-transaction-middleware") {
    // The after-commit pause sits outside the money middleware, once its transaction has committed.
    app.post("/v1/probe/transfer", async (_c, next) => {
      await next();
      if (o.pauseAt === "after-commit") await o.pause();
    });
    app.post("/v1/probe/transfer", idempotentMoneyRoute({ required: true }), async (c) => {
      const data = await transfer(c.get("deps").db, o, await c.req.json());
      return c.json({ success: true, data }, 201);
    });
  } else {
    app.post("/v1/probe/transfer", async (c) => {
      const body = await c.req.json();
      const res = await idempotentMoney(c, { required: true, status: 201 }, (tx) => transfer(tx, o, body));
      if (o.pauseAt === "after-commit") await o.pause();
      return res;
    });
  }
  return app;
}

export function transferRequest(key: string, amount: string, extra: Record<string, unknown> = {}): Request {
  return new Request("http://probe.internal/v1/probe/transfer", {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": key },
    body: JSON.stringify({ amount, ...extra }),
  });
}
