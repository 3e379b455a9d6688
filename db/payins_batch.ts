// Pay-in statements over many rows at once, for callers that move a batch (the scanner's block): one
// round trip whatever their number. One-row statements stay in db/payins.ts.
import type { Db } from "./mod.ts";
import type { PayinRow } from "./payins.ts";

/**
 * moveStatus for many pay-ins in one statement: each moves from the state its caller saw to `to`; those
 * no longer in that state are left alone and not answered. A move may carry the amount received so far and
 * the transaction hash (kept when one is already set), so a payment and its state change are one write.
 */
export async function moveStatusMany(
  db: Db,
  moves: Array<{ id: string; from: string; received?: { amount: string; txHash: string } }>,
  to: string,
  now: Date,
): Promise<PayinRow[]> {
  if (moves.length === 0) return [];
  // `id = ANY` lets the planner find the rows through the primary key, statistics or none.
  return await db.query<PayinRow>(
    `UPDATE payins p SET status = $5, updated_at = $6,
            amount_received = COALESCE(NULLIF(m.received, '')::numeric, p.amount_received),
            tx_hash = COALESCE(p.tx_hash, NULLIF(m.tx_hash, ''))
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS m(id, from_status, received, tx_hash)
      WHERE p.id = ANY($1::text[]) AND p.id = m.id AND p.status = m.from_status RETURNING p.*`,
    [
      moves.map((m) => m.id),
      moves.map((m) => m.from),
      moves.map((m) => m.received?.amount ?? ""),
      moves.map((m) => m.received?.txHash ?? ""),
      to,
      now,
    ],
  );
}
