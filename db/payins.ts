// SQL for pay-ins. State changes go through `moveStatus`, which only moves from the expected state.
import type { Db } from "./mod.ts";

export type PayinRow = {
  id: string;
  merchant_id: string;
  is_sandbox: boolean;
  payment_method: "USDT_TRC20" | "CARD" | "MOBILE_MONEY";
  status: string;
  currency: "USDT_TRC20" | "XOF";
  chain: string | null;
  amount: string;
  amount_expected: string;
  network_fee: string;
  amount_received: string;
  service_fee: string;
  net_amount: string;
  address: string | null;
  tx_hash: string | null;
  external_ref: string | null;
  metadata: Record<string, unknown>;
  success_url: string | null;
  cancel_url: string | null;
  customer_name: string | null;
  customer_email: string | null;
  customer_phone: string | null;
  operator_code: string | null;
  provider_ref: string | null;
  failure_reason: string | null;
  next_step: "otp" | "approval" | "redirect" | null;
  hosted_payment_url: string | null;
  pricing_currency: string | null;
  pricing_amount: string | null;
  fx_rate: string | null;
  expires_at: Date;
  confirmed_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export type NewPayin = {
  id: string;
  merchantId: string;
  isSandbox: boolean;
  paymentMethod: PayinRow["payment_method"];
  currency: PayinRow["currency"];
  chain: string | null;
  amount: string;
  amountExpected: string;
  networkFee: string;
  address: string | null;
  externalRef: string | null;
  metadata: Record<string, unknown>;
  successUrl: string | null;
  cancelUrl: string | null;
  customerName?: string | null;
  customerEmail?: string | null;
  customerPhone?: string | null;
  operatorCode?: string | null;
  expiresAt: Date;
  now: Date;
};

/** The INSERT of a new pay-in (fiat rails; USDT pay-ins are written by db/payin_creation.ts). */
function payinInsertStatement(p: NewPayin): { sql: string; params: unknown[] } {
  const params = [
    p.id,
    p.merchantId,
    p.isSandbox,
    p.paymentMethod,
    p.currency,
    p.chain,
    p.amount,
    p.amountExpected,
    p.networkFee,
    p.address,
    p.externalRef,
    JSON.stringify(p.metadata),
    p.successUrl,
    p.cancelUrl,
    p.customerName ?? null,
    p.customerEmail ?? null,
    p.customerPhone ?? null,
    p.operatorCode ?? null,
    p.expiresAt,
    p.now,
  ];
  return {
    sql: `INSERT INTO payins (id, merchant_id, is_sandbox, payment_method, status, currency, chain, amount,
       amount_expected, network_fee, address, external_ref, metadata, success_url, cancel_url, customer_name,
       customer_email, customer_phone, operator_code, expires_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'AWAITING_PAYMENT', $5, $6, $7::numeric,
       $8::numeric, $9::numeric, $10, $11, $12::text::jsonb, $13, $14, $15,
       $16, $17, $18, $19::timestamptz, $20::timestamptz, $20::timestamptz)
     RETURNING *`,
    params,
  };
}

/** The row `payinInsertStatement` writes, known before the round trip. */
export function newPayinRow(p: NewPayin): PayinRow {
  return {
    id: p.id,
    merchant_id: p.merchantId,
    is_sandbox: p.isSandbox,
    payment_method: p.paymentMethod,
    status: "AWAITING_PAYMENT",
    currency: p.currency,
    chain: p.chain,
    amount: p.amount,
    amount_expected: p.amountExpected,
    network_fee: p.networkFee,
    amount_received: "0",
    service_fee: "0",
    net_amount: "0",
    address: p.address,
    tx_hash: null,
    external_ref: p.externalRef,
    metadata: p.metadata,
    success_url: p.successUrl,
    cancel_url: p.cancelUrl,
    customer_name: p.customerName ?? null,
    customer_email: p.customerEmail ?? null,
    customer_phone: p.customerPhone ?? null,
    operator_code: p.operatorCode ?? null,
    provider_ref: null,
    failure_reason: null,
    next_step: null,
    hosted_payment_url: null,
    pricing_currency: null,
    pricing_amount: null,
    fx_rate: null,
    expires_at: p.expiresAt,
    confirmed_at: null,
    created_at: p.now,
    updated_at: p.now,
  };
}

export async function insertPayin(db: Db, p: NewPayin): Promise<PayinRow> {
  const { sql, params } = payinInsertStatement(p);
  return (await db.query<PayinRow>(sql, params))[0];
}

export async function findPayin(db: Db, id: string): Promise<PayinRow | undefined> {
  return (await db.query<PayinRow>("SELECT * FROM payins WHERE id = $1", [id]))[0];
}

/** Reads and locks a pay-in for a state change inside a transaction. */
export async function lockPayin(db: Db, id: string): Promise<PayinRow | undefined> {
  return (await db.query<PayinRow>("SELECT * FROM payins WHERE id = $1 FOR UPDATE", [id]))[0];
}

export async function findMerchantPayin(
  db: Db,
  merchantId: string,
  isSandbox: boolean,
  id: string,
): Promise<PayinRow | undefined> {
  return (await db.query<PayinRow>(
    "SELECT * FROM payins WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3",
    [
      id,
      merchantId,
      isSandbox,
    ],
  ))[0];
}

export async function listMerchantPayins(
  db: Db,
  q: {
    merchantId: string;
    isSandbox: boolean;
    status?: string;
    currency?: string;
    limit: number;
    offset: number;
  },
): Promise<{ rows: PayinRow[]; total: number }> {
  const where =
    `merchant_id = $1 AND is_sandbox = $2 AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR currency = $4)`;
  const params = [q.merchantId, q.isSandbox, q.status ?? null, q.currency ?? null];
  const [rows, count] = await Promise.all([
    db.query<PayinRow>(
      `SELECT * FROM payins WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6`,
      [
        ...params,
        q.limit,
        q.offset,
      ],
    ),
    db.query<{ total: number }>(`SELECT count(*)::int AS total FROM payins WHERE ${where}`, params),
  ]);
  return { rows, total: count[0].total };
}

export type PayinPatch = Partial<{
  amount_received: string;
  service_fee: string;
  net_amount: string;
  tx_hash: string | null;
  failure_reason: string | null;
  confirmed_at: Date | null;
  provider_ref: string | null;
  next_step: string | null;
  hosted_payment_url: string | null;
}>;

/**
 * Moves a pay-in from `from` to `to` and applies the patch; returns undefined when the pay-in was not
 * in `from` any more (another process moved it first), so callers never write over a newer state.
 */
export async function moveStatus(
  db: Db,
  id: string,
  from: string,
  to: string,
  patch: PayinPatch,
  now: Date,
): Promise<PayinRow | undefined> {
  const columns = Object.keys(patch) as Array<keyof PayinPatch>;
  const sets = columns.map((c, i) => `${c} = $${i + 5}`);
  const rows = await db.query<PayinRow>(
    `UPDATE payins SET status = $3, updated_at = $4${sets.length ? ", " + sets.join(", ") : ""}
      WHERE id = $1 AND status = $2 RETURNING *`,
    [id, from, to, now, ...columns.map((c) => patch[c])],
  );
  return rows[0];
}

export async function updateReceived(
  db: Db,
  id: string,
  amountReceived: string,
  txHash: string | null,
  now: Date,
) {
  await db.query(
    "UPDATE payins SET amount_received = $2, tx_hash = COALESCE(tx_hash, $3), updated_at = $4 WHERE id = $1",
    [
      id,
      amountReceived,
      txHash,
      now,
    ],
  );
}

export async function listExpiredAwaiting(db: Db, now: Date, limit: number): Promise<Array<{ id: string }>> {
  return await db.query<{ id: string }>(
    `SELECT id FROM payins WHERE status = 'AWAITING_PAYMENT' AND payment_method = 'USDT_TRC20' AND expires_at <= $1
      ORDER BY expires_at LIMIT $2`,
    [now, limit],
  );
}

/** Pricing of a pay-in: the currency and amount it was priced in, and the rate it was converted at. */
export async function setPricing(
  db: Db,
  id: string,
  p: { currency: string; amount: string; fxRate: string },
) {
  await db.query("UPDATE payins SET pricing_currency = $2, pricing_amount = $3, fx_rate = $4 WHERE id = $1", [
    id,
    p.currency,
    p.amount,
    p.fxRate,
  ]);
}

/** Fiat pay-ins still open after `olderThan`: their provider is asked, in case a callback was lost. */
export async function listStaleFiat(db: Db, olderThan: Date, limit: number): Promise<PayinRow[]> {
  return await db.query<PayinRow>(
    `SELECT * FROM payins WHERE status = 'AWAITING_PAYMENT' AND payment_method <> 'USDT_TRC20' AND created_at <= $1
      AND provider_ref IS NOT NULL ORDER BY created_at LIMIT $2`,
    [olderThan, limit],
  );
}

/** Records a provider notification once; false when it was seen before (a replay). */
export async function recordNotificationOnce(
  db: Db,
  n: { provider: string; notificationId: string; payinId: string | null; status: string; now: Date },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO provider_notifications (provider, notification_id, payin_id, status, received_at)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING notification_id`,
    [n.provider, n.notificationId, n.payinId, n.status, n.now],
  );
  return rows.length === 1;
}
