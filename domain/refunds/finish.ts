// The ends of a refund's money: paid (IN_FLIGHT -> WORLD, `refund.completed`), or given back to the
// merchant's wallet (IN_FLIGHT -> wallet) when it is rejected, cancelled or failed. Each is one journal
// with a unique reference per refund, booked under the refund's lock together with its state, so however
// often a callback, a retry or a race arrives, money moves once.
import { findSystemAccount, findWallet } from "../../db/ledger.ts";
import type { Db } from "../../db/mod.ts";
import { returnStock } from "../../db/paylinks.ts";
import {
  claimOrderRestock,
  lockRefund,
  type RefundRow,
  type RefundStatus,
  stockedOrderLines,
} from "../../db/refunds.ts";
import type { Deps } from "../deps.ts";
import { postJournal } from "../ledger.ts";
import { isOpen, transitionRefund } from "./states.ts";

type FinishDeps = Pick<Deps, "db" | "queue" | "clock">;

/** Gives the reservation back to the wallet and moves the refund to `to` (REJECTED, CANCELLED, FAILED). */
export async function returnReservation(
  deps: FinishDeps,
  row: RefundRow,
  to: Extract<RefundStatus, "REJECTED" | "CANCELLED" | "FAILED">,
  patch: Partial<RefundRow>,
): Promise<RefundRow> {
  const wallet = (await findWallet(deps.db, row.merchant_id, row.is_sandbox, row.currency, row.wallet_rail))!;
  const inFlight = await findSystemAccount(deps.db, "IN_FLIGHT", row.is_sandbox, row.wallet_rail);
  let moved = row;
  const result = await postJournal(deps.db, {
    reference: `refund:${row.id}:return`,
    kind: "REFUND_RETURN",
    merchantId: row.merchant_id,
    isSandbox: row.is_sandbox,
    postings: [{ accountId: inFlight.id, amount: `-${row.amount}` }, {
      accountId: wallet.id,
      amount: row.amount,
    }],
    metadata: { refundId: row.id, payinId: row.payin_id, outcome: to },
  }, async (tx) => {
    moved = await transitionRefund({ ...deps, db: tx }, row, to, patch);
  });
  if (!result.booked) throw new Error(`refund ${row.id}: reservation already returned while open`);
  return moved;
}

/** Under the refund's lock: the rail paid it. Answers undefined when it was already final. */
export async function completeRefund(
  deps: FinishDeps,
  id: string,
  outcome: { providerRef?: string | null; provider?: string },
): Promise<RefundRow | undefined> {
  return await deps.db.tx(async (tx) => {
    const row = await lockRefund(tx, id);
    if (!row || !isOpen(row.status) || row.status === "PENDING_APPROVAL") return undefined;
    const world = await findSystemAccount(tx, "WORLD", row.is_sandbox, row.wallet_rail);
    const inFlight = await findSystemAccount(tx, "IN_FLIGHT", row.is_sandbox, row.wallet_rail);
    const now = deps.clock.now();
    let moved: RefundRow | undefined;
    await postJournal(tx, {
      reference: `refund:${row.id}:paid`,
      kind: "REFUND_PAID",
      merchantId: row.merchant_id,
      isSandbox: row.is_sandbox,
      postings: [{ accountId: inFlight.id, amount: `-${row.amount}` }, {
        accountId: world.id,
        amount: row.amount,
      }],
      metadata: { refundId: row.id, payinId: row.payin_id, providerRef: outcome.providerRef ?? null },
    }, async (jtx) => {
      if (row.restock) await restockOrder(jtx, row.payin_id, now);
      moved = await transitionRefund({ ...deps, db: jtx }, row, "COMPLETED", {
        completed_at: now,
        provider_ref: outcome.providerRef ?? row.provider_ref,
        provider: outcome.provider ?? row.provider,
      });
    });
    return moved;
  });
}

/** Under the refund's lock: the rail refused or failed it; the money returns to the wallet once. */
export async function failRefund(
  deps: FinishDeps,
  id: string,
  outcome: { reason?: string; providerRef?: string | null; provider?: string },
): Promise<RefundRow | undefined> {
  return await deps.db.tx(async (tx) => {
    const row = await lockRefund(tx, id);
    if (!row || !isOpen(row.status) || row.status === "PENDING_APPROVAL") return undefined;
    return await returnReservation({ ...deps, db: tx }, row, "FAILED", {
      failed_at: deps.clock.now(),
      failure_reason: outcome.reason ?? "PROVIDER_FAILURE",
      provider_ref: outcome.providerRef ?? row.provider_ref,
      provider: outcome.provider ?? row.provider,
    });
  });
}

/** A paylink order's stocked lines go back on sale, once per order whichever refund asks first. */
async function restockOrder(tx: Db, payinId: string, now: Date): Promise<void> {
  const orderId = await claimOrderRestock(tx, payinId, now);
  if (!orderId) return;
  for (const line of await stockedOrderLines(tx, orderId)) {
    await returnStock(tx, line.product_id, line.quantity, now);
  }
}
