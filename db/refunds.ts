// SQL of refunds: one row per refund asked of a pay-in, and what a pay-in still has to give back.
import type { Db } from "./mod.ts";

export type RefundStatus =
  | "PENDING_APPROVAL"
  | "APPROVED"
  | "SENDING"
  | "PROCESSING"
  | "COMPLETED"
  | "FAILED"
  | "REJECTED"
  | "CANCELLED";

export type RefundRow = {
  id: string;
  merchant_id: string;
  is_sandbox: boolean;
  payin_id: string;
  payment_method: "USDT_TRC20" | "CARD" | "MOBILE_MONEY";
  currency: "USDT_TRC20" | "XOF";
  wallet_rail: "TRC20" | "MOMO" | "CARD";
  amount: string;
  reason: string | null;
  restock: boolean;
  status: RefundStatus;
  first_approved_by: string | null;
  reviewer: string | null;
  review_note: string | null;
  auto_approved: boolean;
  provider: string | null;
  provider_ref: string | null;
  failure_reason: string | null;
  disbursement_id: string | null;
  attempts: number;
  idempotency_key: string | null;
  created_at: Date;
  updated_at: Date;
  approved_at: Date | null;
  sent_at: Date | null;
  completed_at: Date | null;
  failed_at: Date | null;
  rejected_at: Date | null;
  cancelled_at: Date | null;
  /** USDT: the customer's address (set once), the transfer paying it, and the signed page link. */
  destination_address: string | null;
  address_set_at: Date | null;
  outbound_id: string | null;
  customer_page_url: string | null;
  customer_page_expires_at: Date | null;
};

export type NewRefund = {
  id: string;
  merchantId: string;
  isSandbox: boolean;
  payinId: string;
  paymentMethod: RefundRow["payment_method"];
  currency: RefundRow["currency"];
  walletRail: RefundRow["wallet_rail"];
  amount: string;
  reason: string | null;
  restock: boolean;
  idempotencyKey: string | null;
  now: Date;
};

export async function insertRefund(db: Db, r: NewRefund): Promise<RefundRow> {
  return (await db.query<RefundRow>(
    `INSERT INTO refunds (id, merchant_id, is_sandbox, payin_id, payment_method, currency, wallet_rail, amount,
       reason, restock, status, idempotency_key, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'PENDING_APPROVAL', $11, $12, $12) RETURNING *`,
    [
      r.id,
      r.merchantId,
      r.isSandbox,
      r.payinId,
      r.paymentMethod,
      r.currency,
      r.walletRail,
      r.amount,
      r.reason,
      r.restock,
      r.idempotencyKey,
      r.now,
    ],
  ))[0];
}

export async function findRefund(db: Db, id: string): Promise<RefundRow | undefined> {
  return (await db.query<RefundRow>("SELECT * FROM refunds WHERE id = $1", [id]))[0];
}

export async function lockRefund(db: Db, id: string): Promise<RefundRow | undefined> {
  return (await db.query<RefundRow>("SELECT * FROM refunds WHERE id = $1 FOR UPDATE", [id]))[0];
}

/** What a pay-in's refunds hold or have paid: every refund not rejected, cancelled or failed. */
export async function refundedOrHeld(db: Db, payinId: string): Promise<string> {
  return (await db.query<{ total: string }>(
    `SELECT COALESCE(sum(amount), 0)::text AS total FROM refunds
      WHERE payin_id = $1 AND status NOT IN ('REJECTED', 'CANCELLED', 'FAILED')`,
    [payinId],
  ))[0].total;
}

/** Sets columns of a refund (names are this module's own, never the caller's input). */
export async function updateRefund(
  db: Db,
  id: string,
  patch: Partial<Omit<RefundRow, "id" | "created_at" | "updated_at">>,
  now: Date,
): Promise<RefundRow> {
  const entries = Object.entries(patch).filter(([, v]) => v !== undefined);
  const sets = entries.map(([k], i) => `${k} = $${i + 3}`);
  return (await db.query<RefundRow>(
    `UPDATE refunds SET updated_at = $2${
      sets.length ? ", " + sets.join(", ") : ""
    } WHERE id = $1 RETURNING *`,
    [id, now, ...entries.map(([, v]) => v)],
  ))[0];
}

export type RefundFilter = {
  status?: string;
  payinId?: string;
  paymentMethod?: string;
  createdFrom?: Date;
  createdTo?: Date;
};

export async function listRefunds(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
  q: RefundFilter & { limit: number; offset: number },
): Promise<{ rows: RefundRow[]; total: number }> {
  const args = [
    scope.merchantId,
    scope.isSandbox,
    q.status ?? null,
    q.payinId ?? null,
    q.paymentMethod ?? null,
    q.createdFrom ?? null,
    q.createdTo ?? null,
  ];
  const where = `merchant_id = $1 AND is_sandbox = $2 AND ($3::text IS NULL OR status = $3)
    AND ($4::text IS NULL OR payin_id = $4) AND ($5::text IS NULL OR payment_method = $5)
    AND ($6::timestamptz IS NULL OR created_at >= $6) AND ($7::timestamptz IS NULL OR created_at < $7)`;
  const [rows, count] = await Promise.all([
    db.query<RefundRow>(
      `SELECT * FROM refunds WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $8 OFFSET $9`,
      [...args, q.limit, q.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM refunds WHERE ${where}`, args),
  ]);
  return { rows, total: count[0].n };
}

/** Refunds waiting for an operator, oldest first, across merchants and modes. */
export async function listRefundsAwaitingApproval(db: Db, limit: number): Promise<RefundRow[]> {
  return await db.query<RefundRow>(
    "SELECT * FROM refunds WHERE status = 'PENDING_APPROVAL' ORDER BY created_at, id LIMIT $1",
    [limit],
  );
}

export async function countRefundsAwaitingApproval(db: Db): Promise<number> {
  return (await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM refunds WHERE status = 'PENDING_APPROVAL'",
  ))[0].n;
}

/** Refunds the sender must look at again: approved and not sent, or sent without a final answer. */
export async function listOpenRefunds(
  db: Db,
  olderThan: Date,
  limit: number,
): Promise<Array<{ id: string }>> {
  return await db.query<{ id: string }>(
    `SELECT id FROM refunds WHERE status IN ('APPROVED', 'SENDING', 'PROCESSING') AND updated_at <= $1
      ORDER BY updated_at LIMIT $2`,
    [olderThan, limit],
  );
}

/** The merchant's per-currency auto-approval thresholds (NULL: every refund waits for an operator). */
export async function refundAutoApproveBelow(
  db: Db,
  merchantId: string,
): Promise<{ XOF: string | null; USDT_TRC20: string | null } | undefined> {
  const row = (await db.query<{ xof: string | null; usdt: string | null }>(
    "SELECT refund_auto_approve_xof::text AS xof, refund_auto_approve_usdt::text AS usdt FROM merchants WHERE id = $1",
    [merchantId],
  ))[0];
  return row ? { XOF: row.xof, USDT_TRC20: row.usdt } : undefined;
}

export async function setRefundAutoApprove(
  db: Db,
  merchantId: string,
  limits: { XOF: string | null; USDT_TRC20: string | null },
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE merchants SET refund_auto_approve_xof = $2, refund_auto_approve_usdt = $3 WHERE id = $1 RETURNING id`,
    [merchantId, limits.XOF, limits.USDT_TRC20],
  );
  return rows.length === 1;
}

/** Marks a paylink order's items as given back; answers the order id the first time only. */
export async function claimOrderRestock(db: Db, payinId: string, now: Date): Promise<string | undefined> {
  return (await db.query<{ id: string }>(
    "UPDATE paylink_orders SET restocked_at = $2 WHERE payin_id = $1 AND restocked_at IS NULL RETURNING id",
    [payinId, now],
  ))[0]?.id;
}

/** The lines of an order that took units from stock. */
export async function stockedOrderLines(
  db: Db,
  orderId: string,
): Promise<Array<{ product_id: string; quantity: number }>> {
  return await db.query<{ product_id: string; quantity: number }>(
    "SELECT product_id, quantity FROM paylink_order_items WHERE order_id = $1 AND stock_reserved",
    [orderId],
  );
}

/** Whether a TRON address (41-prefixed hex) belongs to the gateway: a pay-in's or a merchant's deposit address. */
export async function isDepositAddress(db: Db, addressHex: string): Promise<boolean> {
  return (await db.query<{ ours: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM deposit_addresses WHERE address_hex = $1)
         OR EXISTS (SELECT 1 FROM merchant_deposit_addresses WHERE address_hex = $1) AS ours`,
    [addressHex],
  ))[0].ours;
}

/** What the pay-ins' refunds gave back (COMPLETED only), by pay-in id; pay-ins without one are absent. */
export async function refundedAmounts(db: Db, payinIds: string[]): Promise<Map<string, string>> {
  if (payinIds.length === 0) return new Map();
  const rows = await db.query<{ payin_id: string; total: string }>(
    `SELECT payin_id, sum(amount)::text AS total FROM refunds
      WHERE payin_id = ANY($1::text[]) AND status = 'COMPLETED' GROUP BY payin_id`,
    [payinIds],
  );
  return new Map(rows.map((r) => [r.payin_id, r.total]));
}
