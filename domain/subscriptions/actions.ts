// The merchant's subscription routes (list, retrieve, pause, resume, cancel, change amount or interval)
// and the customer's signed cancel link. Each move goes through the state table and writes its event in
// the same transaction; a concurrent move wins and this one is judged again from the state it left.
import * as subsDb from "../../db/subscriptions.ts";
import type { Caller } from "../auth.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { emitEvent } from "../webhooks/events.ts";
import { isWellFormedId } from "../ids.ts";
import { Decimal } from "../money.ts";
import { assertSubscriptionMove, type SubscriptionAction } from "./states.ts";
import { checkCancelToken, formatAmount, type SubscriptionEvent, subscriptionEventData } from "./view.ts";

type ActionDeps = Pick<Deps, "db" | "queue" | "clock" | "config" | "log">;
type Owner = Pick<Caller, "merchantId" | "isSandbox">;

function notFound(): AppError {
  return new AppError("NOT_FOUND", "No such subscription");
}

export async function getSubscription(deps: Pick<Deps, "db">, owner: Owner, id: string) {
  const row = isWellFormedId("sub", id) ? await subsDb.findSubscriptionOf(deps.db, owner, id) : undefined;
  if (!row) throw notFound();
  return row;
}

export async function listSubscriptions(
  deps: Pick<Deps, "db">,
  owner: Owner,
  q: { page: number; limit: number; status?: string; paylinkId?: string },
) {
  return await subsDb.listSubscriptionsOf(deps.db, owner, q);
}

export async function listRenewals(deps: Pick<Deps, "db">, owner: Owner, id: string) {
  const s = await getSubscription(deps, owner, id);
  return await subsDb.listRenewalsOf(deps.db, s.id);
}

type Patch = Parameters<typeof subsDb.moveSubscription>[4];

/**
 * Applies `action` to the subscription `id` (read again inside the transaction): the state table says
 * where it goes, `patchOf` what else changes, and `event` is written with it. A move lost to a concurrent
 * one is retried from the new state, where the table may refuse it.
 */
async function act(
  deps: ActionDeps,
  id: string,
  action: SubscriptionAction,
  event: SubscriptionEvent,
  patchOf: (s: subsDb.SubscriptionRow, now: Date) => Patch,
  after?: (tx: ActionDeps, moved: subsDb.SubscriptionRow, before: subsDb.SubscriptionRow) => Promise<void>,
  extraOf?: (before: subsDb.SubscriptionRow) => Parameters<typeof subscriptionEventData>[2],
): Promise<subsDb.SubscriptionRow> {
  for (let attempt = 0;; attempt++) {
    const moved = await deps.db.tx(async (tx) => {
      const txDeps = { ...deps, db: tx };
      const s = await subsDb.findSubscription(tx, id);
      if (!s) throw notFound();
      const to = assertSubscriptionMove(s.status, action);
      const now = deps.clock.now();
      const row = await subsDb.moveSubscription(tx, s.id, s.status, to, patchOf(s, now), now);
      if (!row) return undefined;
      if (after) await after(txDeps, row, s);
      await emitEvent(txDeps, {
        merchantId: row.merchant_id,
        isSandbox: row.is_sandbox,
        type: event,
        data: subscriptionEventData(deps.config, row, extraOf?.(s) ?? {}),
      });
      return row;
    });
    if (moved) {
      deps.log.info("subscription changed", { subscriptionId: moved.id, action, status: moved.status });
      return moved;
    }
    if (attempt >= 5) throw new AppError("CONFLICT", "The subscription is changing; try again");
  }
}

export async function pauseSubscription(deps: ActionDeps, owner: Owner, id: string) {
  const s = await getSubscription(deps, owner, id);
  return await act(deps, s.id, "pause", "subscription.paused", (_s, now) => ({ paused_at: now }));
}

/**
 * Resumes billing. Paused past the start of the next period, the missed periods are skipped and a new
 * period starts now (its renewal at the next run); paused within the paid period, nothing else changes.
 */
export async function resumeSubscription(deps: ActionDeps, owner: Owner, id: string) {
  const s = await getSubscription(deps, owner, id);
  const resumed = await act(deps, s.id, "resume", "subscription.resumed", (row, now) => {
    if (row.next_period_start.getTime() >= now.getTime()) return { paused_at: null };
    return { paused_at: null, anchor_at: now, anchor_index: row.next_period_index, next_period_start: now };
  });
  // A period starting now: its renewal is asked at once rather than at the next cron minute (the cron
  // would find it anyway, and the claim makes the two one).
  if (resumed.next_period_start.getTime() <= deps.clock.now().getTime()) {
    await deps.queue.enqueue({
      type: "subscription.renew",
      subscriptionId: resumed.id,
      periodIndex: resumed.next_period_index,
    });
  }
  return resumed;
}

async function closeOpenRenewals(tx: ActionDeps, subscriptionId: string) {
  const now = tx.clock.now();
  for (const r of await subsDb.listOpenRenewals(tx.db, subscriptionId)) {
    await subsDb.finishRenewal(tx.db, r.id, "CANCELLED", now, "SUBSCRIPTION_CANCELLED");
  }
}

function cancelAs(by: "MERCHANT" | "CUSTOMER") {
  return (_s: subsDb.SubscriptionRow, now: Date): Patch => ({ cancelled_at: now, cancelled_by: by });
}

export async function cancelSubscription(deps: ActionDeps, owner: Owner, id: string) {
  const s = await getSubscription(deps, owner, id);
  return await act(
    deps,
    s.id,
    "cancel",
    "subscription.cancelled",
    cancelAs("MERCHANT"),
    async (tx, moved) => {
      await closeOpenRenewals(tx, moved.id);
    },
  );
}

/** The customer's link: a valid token for this subscription, or NOT_FOUND (it reveals nothing). */
export async function findByCancelToken(deps: Pick<Deps, "db" | "config">, id: string, token: string) {
  if (!isWellFormedId("sub", id) || !await checkCancelToken(deps.config, id, token)) return undefined;
  return await subsDb.findSubscription(deps.db, id);
}

/** Cancels through the customer's signed link; an already cancelled subscription answers as it is. */
export async function cancelByCustomer(deps: ActionDeps, id: string, token: string) {
  const s = await findByCancelToken(deps, id, token);
  if (!s) throw notFound();
  if (s.status === "CANCELLED") return s;
  try {
    return await act(
      deps,
      s.id,
      "cancel",
      "subscription.cancelled",
      cancelAs("CUSTOMER"),
      async (tx, moved) => {
        await closeOpenRenewals(tx, moved.id);
      },
    );
  } catch (err) {
    // Cancelled meanwhile (the merchant, or the same link twice at once): the customer's wish holds.
    const now = await subsDb.findSubscription(deps.db, id);
    if (err instanceof AppError && now?.status === "CANCELLED") return now;
    throw err;
  }
}

export type SubscriptionChange = {
  amount?: string;
  interval?: subsDb.BillingInterval;
  intervalCount?: number;
};

function invalid(field: string, reason: string): AppError {
  return new AppError("VALIDATION_ERROR", `Validation failed: ${field}: ${reason}`, {
    details: [{ field, reason }],
  });
}

function checkAmount(amount: string, currency: "USDT_TRC20" | "XOF"): string {
  const places = currency === "XOF" ? 0 : 6;
  const pattern = places === 0 ? /^[1-9]\d{0,11}$/ : /^(0|[1-9]\d{0,11})(\.\d{1,6})?$/;
  if (!pattern.test(amount) || new Decimal(amount).lte(0)) {
    throw invalid(
      "amount",
      currency === "XOF"
        ? "a whole number of XOF, more than 0"
        : "a USDT amount with at most 6 decimals, more than 0",
    );
  }
  return new Decimal(amount).toFixed();
}

/**
 * Changes the price or the rhythm from the next renewal not yet started (the running period stays paid
 * as it was). A new rhythm counts from the start of that next period.
 */
export async function updateSubscription(
  deps: ActionDeps,
  owner: Owner,
  id: string,
  change: SubscriptionChange,
) {
  const s = await getSubscription(deps, owner, id);
  const amount = change.amount === undefined ? undefined : checkAmount(change.amount, s.currency);
  return await act(
    deps,
    s.id,
    "update",
    "subscription.updated",
    (row) => {
      const patch: Patch = {};
      if (amount !== undefined) patch.amount = amount;
      const interval = change.interval ?? row.billing_interval;
      const count = change.intervalCount ?? row.interval_count;
      if (interval !== row.billing_interval || count !== row.interval_count) {
        Object.assign(patch, {
          billing_interval: interval,
          interval_count: count,
          anchor_at: row.next_period_start,
          anchor_index: row.next_period_index,
        });
      }
      return patch;
    },
    undefined,
    (before) => ({
      previous: {
        amount: formatAmount(before.amount, before.currency),
        interval: before.billing_interval,
        intervalCount: before.interval_count,
      },
    }),
  );
}
