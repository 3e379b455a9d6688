// SQL of the pay-ins held for review (migration 024): paid while their merchant was not ACTIVE.
import type { Db } from "./mod.ts";

export type ReviewHoldRow = {
  payin_id: string;
  merchant_id: string;
  is_sandbox: boolean;
  merchant_status: string;
  reason: string;
  created_at: Date;
  reviewed_at: Date | null;
  reviewed_by: string | null;
  review_note: string | null;
  /** From the pay-in: what it is and what the merchant was credited. */
  status: string;
  currency: string;
  payment_method: string;
  amount_received: string;
  net_amount: string;
};

const COLUMNS =
  `h.payin_id, h.merchant_id, h.is_sandbox, h.merchant_status, h.reason, h.created_at, h.reviewed_at,
  h.reviewed_by, h.review_note, p.status, p.currency, p.payment_method,
  p.amount_received::text AS amount_received, p.net_amount::text AS net_amount`;

/** Records the hold once (a second settlement attempt of the same pay-in adds nothing). */
export async function insertReviewHold(
  db: Db,
  h: {
    payinId: string;
    merchantId: string;
    isSandbox: boolean;
    merchantStatus: string;
    reason: string;
    now: Date;
  },
): Promise<boolean> {
  return (await db.query(
    `INSERT INTO payin_review_holds (payin_id, merchant_id, is_sandbox, merchant_status, reason, created_at)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (payin_id) DO NOTHING RETURNING payin_id`,
    [h.payinId, h.merchantId, h.isSandbox, h.merchantStatus, h.reason, h.now],
  )).length > 0;
}

export async function listReviewHolds(
  db: Db,
  filter: { merchantId?: string; open?: boolean; limit: number },
): Promise<ReviewHoldRow[]> {
  return await db.query<ReviewHoldRow>(
    `SELECT ${COLUMNS} FROM payin_review_holds h JOIN payins p ON p.id = h.payin_id
      WHERE ($1::text IS NULL OR h.merchant_id = $1)
        AND ($2::boolean IS NULL OR (h.reviewed_at IS NULL) = $2)
      ORDER BY h.created_at DESC, h.payin_id DESC LIMIT $3`,
    [filter.merchantId ?? null, filter.open ?? null, filter.limit],
  );
}

export async function findReviewHold(db: Db, payinId: string): Promise<ReviewHoldRow | undefined> {
  return (await db.query<ReviewHoldRow>(
    `SELECT ${COLUMNS} FROM payin_review_holds h JOIN payins p ON p.id = h.payin_id WHERE h.payin_id = $1`,
    [payinId],
  ))[0];
}

/** Marks the hold reviewed once; undefined when there is no such hold or it was already reviewed. */
export async function markReviewed(
  db: Db,
  r: { payinId: string; reviewer: string; note: string | null; now: Date },
): Promise<boolean> {
  return (await db.query(
    `UPDATE payin_review_holds SET reviewed_at = $2, reviewed_by = $3, review_note = $4
      WHERE payin_id = $1 AND reviewed_at IS NULL RETURNING payin_id`,
    [r.payinId, r.now, r.reviewer, r.note],
  )).length > 0;
}
