// Renewals: each period a renewal starts (`subscription.renewal_initiated`, the payment request by
// e-mail and on the hosted renewal page); paid, it is `subscription.renewed` and the paid period
// advances; unpaid after the grace (SUBSCRIPTION_GRACE_HOURS) it is `subscription.failed`.
//
// Exactly once per period: the renewal row is claimed by ONE statement under the unique key
// (subscription, period), so two processes running the cron, or a KV message delivered twice, start it
// once; the loser's statement returns nothing and it does nothing else.
import { findMerchant } from "../../db/merchants.ts";
import { findPayin, type PayinRow } from "../../db/payins.ts";
import * as subsDb from "../../db/subscriptions.ts";
import type { Deps } from "../deps.ts";
import { emitEvent } from "../webhooks/events.ts";
import { newId } from "../ids.ts";
import { merchantPaymentRefusal } from "../merchants/availability.ts";
import { brandingOf } from "../merchants/branding.ts";
import { type FollowDeps, FULLY_PAID } from "./create.ts";
import { queueRenewalMail } from "./mail.ts";
import { periodStart } from "./periods.ts";
import { nextStatus } from "./states.ts";
import { subscriptionEventData } from "./view.ts";

/** Hours a renewal stays payable when the configuration does not say (SUBSCRIPTION_GRACE_HOURS). */
export const DEFAULT_GRACE_HOURS = 72;

/** A renewal's pay-in that ended without money: the renewal may fail once its grace is over. */
const ENDED_UNPAID = new Set(["EXPIRED", "FAILED"]);

type JobDeps = Pick<Deps, "db" | "queue" | "clock" | "config" | "log">;

/**
 * Starts the renewal of period `periodIndex` of a subscription if it is due and nobody started it yet.
 * Answers the renewal when this call started it, undefined otherwise (not due, paused, already started).
 */
export async function startRenewal(
  deps: JobDeps,
  subscriptionId: string,
  periodIndex: number,
): Promise<subsDb.RenewalRow | undefined> {
  const s = await subsDb.findSubscription(deps.db, subscriptionId);
  if (!s || s.next_period_index !== periodIndex) return undefined;
  // A merchant that takes no payments asks its customers for none: the period stays due and starts once
  // the merchant is ACTIVE again (the cron's list skips such merchants; this catches a queued message).
  const refusal = await merchantPaymentRefusal(deps, s.merchant_id);
  if (refusal) {
    deps.log.info("subscription renewal not started: merchant takes no payments", {
      subscriptionId,
      code: refusal.code,
    });
    return undefined;
  }
  const now = deps.clock.now();
  const periodEnd = periodStart(s, periodIndex + 1);
  return await deps.db.tx(async (tx) => {
    const txDeps = { ...deps, db: tx };
    // The subscription's lock first (the order every writer takes), so a pause or cancellation committing
    // meanwhile is seen by the claim below, which re-checks the state in its own statement.
    await subsDb.findSubscription(tx, subscriptionId, { lock: true });
    const renewal = await subsDb.claimRenewal(tx, {
      id: newId("srn", now.getTime()),
      subscriptionId,
      periodIndex,
      periodEnd,
      graceUntil: new Date(
        now.getTime() + (deps.config.subscriptionGraceHours ?? DEFAULT_GRACE_HOURS) * 3_600_000,
      ),
      now,
    });
    if (!renewal) return undefined;
    const advanced = await subsDb.advanceNextPeriod(tx, subscriptionId, { periodIndex, periodEnd }, now);
    await emitEvent(txDeps, {
      merchantId: advanced.merchant_id,
      isSandbox: advanced.is_sandbox,
      type: "subscription.renewal_initiated",
      data: subscriptionEventData(deps.config, advanced, { renewal }),
    });
    const merchant = await findMerchant(tx, advanced.merchant_id);
    await queueRenewalMail(txDeps, advanced, renewal, merchant ? brandingOf(merchant).displayName : "");
    deps.log.info("subscription renewal started", {
      subscriptionId,
      renewalId: renewal.id,
      periodIndex,
      mode: advanced.is_sandbox ? "sandbox" : "live",
    });
    return renewal;
  });
}

/** The cron's pass: every due subscription's next renewal (a batch at a time). Returns how many started. */
export async function renewDueSubscriptions(deps: JobDeps, limit = 200): Promise<number> {
  let started = 0;
  for (const due of await subsDb.listDueRenewals(deps.db, deps.clock.now(), limit)) {
    try {
      if (await startRenewal(deps, due.id, due.next_period_index)) started++;
    } catch (err) {
      // One subscription's trouble never holds the others back; it is due again at the next run.
      deps.log.error("subscription renewal not started", { subscriptionId: due.id, error: String(err) });
    }
  }
  return started;
}

async function moveForRenewal(
  tx: JobDeps,
  subscriptionId: string,
  action: "renew" | "fail",
  patchOf: (s: subsDb.SubscriptionRow) => Parameters<typeof subsDb.moveSubscription>[4],
): Promise<subsDb.SubscriptionRow | undefined> {
  const s = await subsDb.findSubscription(tx.db, subscriptionId, { lock: true });
  if (!s) return undefined;
  const to = nextStatus(s.status, action);
  // A cancelled subscription keeps its state; the renewal alone records what happened.
  if (!to) return undefined;
  return await subsDb.moveSubscription(tx.db, s.id, s.status, to, patchOf(s), tx.clock.now());
}

async function failRenewal(deps: JobDeps, renewal: subsDb.RenewalRow, reason: string) {
  const failed = await subsDb.finishRenewal(deps.db, renewal.id, "FAILED", deps.clock.now(), reason);
  if (!failed) return undefined;
  const s = await moveForRenewal(deps, failed.subscription_id, "fail", () => ({}));
  if (s) {
    await emitEvent(deps, {
      merchantId: s.merchant_id,
      isSandbox: s.is_sandbox,
      type: "subscription.failed",
      data: subscriptionEventData(deps.config, s, { renewal: failed, reason }),
    });
  }
  return failed;
}

/** Renewals past their grace with no pay-in running: FAILED (`subscription.failed`). Returns how many. */
export async function failRenewalsPastGrace(deps: JobDeps, limit = 200): Promise<number> {
  let failed = 0;
  for (const id of await subsDb.listRenewalsPastGrace(deps.db, deps.clock.now(), limit)) {
    const done = await deps.db.tx(async (tx) => {
      // The subscription first, then the renewal: the order every writer locks them in.
      const seen = await subsDb.findRenewal(tx, id);
      if (!seen) return undefined;
      await subsDb.findSubscription(tx, seen.subscription_id, { lock: true });
      const renewal = await subsDb.findRenewal(tx, id, { lock: true });
      if (!renewal || renewal.status !== "PENDING") return undefined;
      // A pay-in started since the list was read keeps the renewal open until it ends.
      const payin = renewal.payin_id ? await findPayin(tx, renewal.payin_id) : undefined;
      if (payin && !ENDED_UNPAID.has(payin.status)) return undefined;
      return await failRenewal({ ...deps, db: tx }, renewal, "UNPAID");
    }).catch((err) => {
      deps.log.error("subscription renewal not failed", { renewalId: id, error: String(err) });
      return undefined;
    });
    if (done) failed++;
  }
  return failed;
}

/**
 * A renewal follows its pay-in, in the transaction of the pay-in's move: fully paid, the renewal is PAID,
 * the paid period advances and `subscription.renewed` is sent; underpaid, the renewal fails at once. An
 * expired or failed pay-in changes nothing: the customer may start another until the grace ends.
 */
export async function followRenewalPayin(deps: FollowDeps, payin: PayinRow, status: string): Promise<void> {
  if (!FULLY_PAID.has(status) && status !== "UNDERPAID") return;
  await deps.db.tx(async (tx) => {
    const txDeps = { ...deps, db: tx };
    // Locks in the order every writer takes them: the subscription, then its renewal (a cancellation
    // moving both at once never deadlocks with a payment).
    const seen = await subsDb.findRenewalByPayin(tx, payin.id);
    if (!seen) return;
    await subsDb.findSubscription(tx, seen.subscription_id, { lock: true });
    const renewal = (await subsDb.findRenewal(tx, seen.id, { lock: true }))!;
    const now = deps.clock.now();
    if (renewal.status !== "PENDING") {
      // Paid after it was closed (cancelled meanwhile): the merchant has the money and sees it.
      if (FULLY_PAID.has(status)) await subsDb.stampLatePayment(tx, renewal.id, now);
      deps.log.warn("renewal paid after it was closed", { renewalId: renewal.id, status: renewal.status });
      return;
    }
    if (!FULLY_PAID.has(status)) {
      await failRenewal(txDeps, renewal, "UNDERPAID");
      return;
    }
    const paid = (await subsDb.finishRenewal(tx, renewal.id, "PAID", now))!;
    const s = await moveForRenewal(
      txDeps,
      paid.subscription_id,
      "renew",
      (row) =>
        paid.period_index > row.current_period_index
          ? {
            current_period_index: paid.period_index,
            current_period_start: paid.period_start,
            current_period_end: paid.period_end,
          }
          : {},
    );
    if (!s) return;
    await emitEvent(txDeps, {
      merchantId: s.merchant_id,
      isSandbox: s.is_sandbox,
      type: "subscription.renewed",
      data: subscriptionEventData(deps.config, s, { renewal: paid }),
    });
  });
}
