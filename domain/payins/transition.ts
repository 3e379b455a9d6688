// The one way a pay-in changes state: the move must be in the transition table, it only happens from
// the state the caller saw (a concurrent move wins, and this one answers undefined), and the event that
// reports it is written in the same transaction. Each move (and each creation) is one JSON log line for
// operators, written once the transaction has committed.
import { moveStatus, type PayinPatch, type PayinRow } from "../../db/payins.ts";
import { moveStatusMany } from "../../db/payins_batch.ts";
import type { Deps } from "../deps.ts";
import { emitEvent } from "../webhooks/events.ts";
import { logStateChange } from "../log.ts";
import { emitEvents } from "../webhooks/events_batch.ts";
import { assertMove, type PayinStatus } from "./states.ts";
import { type PayinEvent, payinEventData } from "./view.ts";
import { followPayin } from "../paylinks/checkout.ts";
import { startSubscriptionOfOrder } from "../subscriptions/create.ts";
import { followRenewalPayin } from "../subscriptions/renewals.ts";

/**
 * A paylink order follows its pay-in in the same transaction as the move (paid, or released on expiry
 * and failure). Only pay-ins a paylink checkout created carry `metadata.orderId`: the others cost nothing.
 */
async function followOrders(
  deps: Pick<Deps, "db" | "queue" | "clock" | "config" | "log">,
  moved: PayinRow[],
  to: PayinStatus,
) {
  for (const m of moved) {
    if (typeof m.metadata?.orderId === "string") {
      const order = await followPayin(deps, m.id, to);
      // A RECURRING paylink's first paid order starts its subscription in this same transaction.
      if (order) await startSubscriptionOfOrder(deps, order, to);
    }
    // A subscription renewal's pay-in (domain/subscriptions/renewal_payin.ts).
    if (typeof m.metadata?.renewalId === "string") await followRenewalPayin(deps, m, to);
  }
}

/** The event each arrival state reports; a move to AWAITING_PAYMENT (after a reorg) reports none. */
export const EVENT_OF: Partial<Record<PayinStatus, PayinEvent>> = {
  CONFIRMING: "payin.confirming",
  CONFIRMED: "payin.confirmed",
  UNDERPAID: "payin.underpaid",
  OVERPAID: "payin.overpaid",
  EXPIRED: "payin.expired",
  FAILED: "payin.failed",
};

/** The pay-in's line of `logStateChange`: ids, mode, method and amounts (no customer data, metadata). */
export function logPayinState(
  deps: Pick<Deps, "db" | "log">,
  payin: PayinRow,
  from: string | null,
): void {
  logStateChange(deps, "payin", {
    payinId: payin.id,
    merchantId: payin.merchant_id,
    mode: payin.is_sandbox ? "sandbox" : "live",
    paymentMethod: payin.payment_method,
    from,
    to: payin.status,
    currency: payin.currency,
    amount: payin.amount,
    amountExpected: payin.amount_expected,
    amountReceived: payin.amount_received,
    serviceFee: payin.service_fee,
    netAmount: payin.net_amount,
    ...(payin.failure_reason ? { failureReason: payin.failure_reason } : {}),
  });
}

export async function transitionPayin(
  deps: Pick<Deps, "db" | "queue" | "clock" | "config" | "log">,
  payin: Pick<PayinRow, "id" | "status">,
  to: PayinStatus,
  patch: PayinPatch = {},
): Promise<PayinRow | undefined> {
  assertMove(payin.status as PayinStatus, to);
  const moved = await moveStatus(deps.db, payin.id, payin.status, to, patch, deps.clock.now());
  if (moved) logPayinState(deps, moved, payin.status);
  if (moved) await followOrders(deps, [moved], to);
  const event = EVENT_OF[to];
  if (moved && event) {
    await emitEvent(deps, {
      merchantId: moved.merchant_id,
      isSandbox: moved.is_sandbox,
      type: event,
      data: payinEventData(deps.config, moved, event),
    });
  }
  return moved;
}

/**
 * transitionPayin for many pay-ins at once: one UPDATE and one INSERT of their events whatever their
 * number (the scanner's block). A pay-in may carry what it has received, written with the move. Answers
 * the pay-ins that moved, in the order given.
 */
export async function transitionPayins(
  deps: Pick<Deps, "db" | "queue" | "clock" | "config" | "log">,
  payins: Array<Pick<PayinRow, "id" | "status"> & { received?: { amount: string; txHash: string } }>,
  to: PayinStatus,
): Promise<PayinRow[]> {
  for (const p of payins) assertMove(p.status as PayinStatus, to);
  const moves = payins.map((p) => ({ id: p.id, from: p.status, received: p.received }));
  const order = new Map(payins.map((p, i) => [p.id, i]));
  const moved = (await moveStatusMany(deps.db, moves, to, deps.clock.now()))
    .sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  await followOrders(deps, moved, to);
  const event = EVENT_OF[to];
  if (event) {
    await emitEvents(
      deps,
      moved.map((m) => ({
        merchantId: m.merchant_id,
        isSandbox: m.is_sandbox,
        type: event,
        data: payinEventData(deps.config, m, event),
      })),
    );
  }
  const from = new Map(payins.map((p) => [p.id, p.status]));
  for (const m of moved) logPayinState(deps, m, from.get(m.id) ?? null);
  return moved;
}
