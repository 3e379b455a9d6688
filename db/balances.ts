// What a merchant's wallets have reserved: accepted money-out items that took their amount out of the
// wallet and have not reached a final state yet (migration 012's outbound rows, whose money sits in
// IN_FLIGHT). Split between waiting for an operator and on its way.
import type { Db } from "./mod.ts";

/** Statuses whose amount waits for an operator's decision. */
export const IN_REVIEW_STATUSES = ["PENDING", "PENDING_REVIEW"];
/** Statuses whose amount is approved and on its way out. */
export const IN_FLIGHT_STATUSES = ["PROCESSING", "APPROVED", "BROADCAST"];

export type ReservedRow = { currency: string; in_review: string; in_flight: string };

/** Reserved amounts per currency of the outbound rows (payouts and USDT withdrawals: the TRC20 wallet). */
export async function reservedByCurrency(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
): Promise<ReservedRow[]> {
  // Status lists as JSON text: exact on both drivers, whatever array types a connection knows.
  return await db.query<ReservedRow>(
    `WITH review AS (SELECT jsonb_array_elements_text($3::text::jsonb) AS s),
          flight AS (SELECT jsonb_array_elements_text($4::text::jsonb) AS s)
     SELECT currency,
            COALESCE(sum(debited) FILTER (WHERE status IN (SELECT s FROM review)), 0)::text AS in_review,
            COALESCE(sum(debited) FILTER (WHERE status IN (SELECT s FROM flight)), 0)::text AS in_flight
       FROM outbound_transfers
      WHERE merchant_id = $1 AND is_sandbox = $2
        AND (status IN (SELECT s FROM review) OR status IN (SELECT s FROM flight))
      GROUP BY currency`,
    [
      scope.merchantId,
      scope.isSandbox,
      JSON.stringify(IN_REVIEW_STATUSES),
      JSON.stringify(IN_FLIGHT_STATUSES),
    ],
  );
}
