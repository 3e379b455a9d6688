// What a merchant's wallets have reserved: accepted money-out items that took their amount out of the
// wallet and have not reached a final state yet (migration 012's outbound rows, whose money sits in
// IN_FLIGHT), and bulk items debited at execution (in review while their batch is PENDING_REVIEW). Split
// between waiting for an operator and on its way.
import type { Db } from "./mod.ts";

/** Statuses whose amount waits for an operator's decision. */
export const IN_REVIEW_STATUSES = ["PENDING", "PENDING_REVIEW"];
/** Statuses whose amount is approved and on its way out. */
export const IN_FLIGHT_STATUSES = ["PROCESSING", "APPROVED", "BROADCAST"];

export type ReservedRow = { rail: string; in_review: string; in_flight: string };

/**
 * Reserved amounts per wallet rail: outbound rows (payouts, USDT and XOF withdrawals) waiting for review
 * or on their way, plus bulk items debited and not final yet (a USDT item's own payout row is not counted
 * twice: the item stands for it).
 */
export async function reservedByRail(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
): Promise<ReservedRow[]> {
  // Status lists as JSON text: exact on both drivers, whatever array types a connection knows.
  return await db.query<ReservedRow>(
    `WITH review AS (SELECT jsonb_array_elements_text($3::text::jsonb) AS s),
          flight AS (SELECT jsonb_array_elements_text($4::text::jsonb) AS s),
          reserved AS (
            SELECT wallet_rail AS rail,
                   CASE WHEN status IN (SELECT s FROM review) THEN debited ELSE 0 END AS in_review,
                   CASE WHEN status IN (SELECT s FROM flight) THEN debited ELSE 0 END AS in_flight
              FROM outbound_transfers
             WHERE merchant_id = $1 AND is_sandbox = $2 AND bulk_item_id IS NULL
               -- A USDT refund's transfer is the refund's own reservation (refundReservedByRail).
               AND kind <> 'REFUND'
               AND (status IN (SELECT s FROM review) OR status IN (SELECT s FROM flight))
            UNION ALL
            SELECT CASE b.rail WHEN 'MOBILE_MONEY' THEN 'MOMO' ELSE 'TRC20' END,
                   CASE WHEN b.status = 'PENDING_REVIEW' THEN i.amount + i.fee ELSE 0 END,
                   CASE WHEN b.status = 'PROCESSING' THEN i.amount + i.fee ELSE 0 END
              FROM bulk_items i JOIN bulk_batches b ON b.id = i.batch_id
             WHERE b.merchant_id = $1 AND b.is_sandbox = $2
               AND ((b.status = 'PROCESSING' AND i.status IN ('QUEUED', 'PROCESSING'))
                 -- A batch held for review (migration 023) is debited, its items still PENDING.
                 OR (b.status = 'PENDING_REVIEW' AND i.status = 'PENDING')))
     SELECT rail, COALESCE(sum(in_review), 0)::text AS in_review, COALESCE(sum(in_flight), 0)::text AS in_flight
       FROM reserved GROUP BY rail`,
    [
      scope.merchantId,
      scope.isSandbox,
      JSON.stringify(IN_REVIEW_STATUSES),
      JSON.stringify(IN_FLIGHT_STATUSES),
    ],
  );
}

/** A refund's end states: its reservation has left IN_FLIGHT (paid out or given back to the wallet). */
export const REFUND_FINAL_STATUSES = ["COMPLETED", "REJECTED", "CANCELLED", "FAILED"];

export type RefundReservedRow = { rail: string; reserved: string };

/** What refunds not final yet hold in IN_FLIGHT, per wallet rail (reserved at the refund's creation). */
export async function refundReservedByRail(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
): Promise<RefundReservedRow[]> {
  return await db.query<RefundReservedRow>(
    `SELECT wallet_rail AS rail, COALESCE(sum(amount), 0)::text AS reserved
       FROM refunds
      WHERE merchant_id = $1 AND is_sandbox = $2
        AND status NOT IN (SELECT jsonb_array_elements_text($3::text::jsonb))
      GROUP BY wallet_rail`,
    [scope.merchantId, scope.isSandbox, JSON.stringify(REFUND_FINAL_STATUSES)],
  );
}
