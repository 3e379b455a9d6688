// SQL of subscriptions and their renewals (migration 021). Every state change is a conditional UPDATE
// from the state the caller saw, so two processes (or a merchant and a customer) cannot both move a row.
import type { Db } from "./mod.ts";

export type SubscriptionStatus = "ACTIVE" | "PAST_DUE" | "PAUSED" | "CANCELLED";
export type BillingInterval = "WEEKLY" | "MONTHLY" | "YEARLY";

export type SubscriptionRow = {
  id: string;
  merchant_id: string;
  is_sandbox: boolean;
  paylink_id: string;
  first_order_id: string;
  status: SubscriptionStatus;
  customer_email: string;
  customer_name: string | null;
  customer_phone: string | null;
  currency: "USDT_TRC20" | "XOF";
  amount: string;
  description: string;
  first_rail: "USDT_TRC20" | "CARD" | "MOBILE_MONEY" | null;
  billing_interval: BillingInterval;
  interval_count: number;
  anchor_at: Date;
  anchor_index: number;
  current_period_index: number;
  current_period_start: Date;
  current_period_end: Date;
  next_period_index: number;
  next_period_start: Date;
  paused_at: Date | null;
  cancelled_at: Date | null;
  cancelled_by: "MERCHANT" | "CUSTOMER" | null;
  created_at: Date;
  updated_at: Date;
};

export type RenewalStatus = "PENDING" | "PAID" | "FAILED" | "CANCELLED";

export type RenewalRow = {
  id: string;
  subscription_id: string;
  merchant_id: string;
  is_sandbox: boolean;
  period_index: number;
  period_start: Date;
  period_end: Date;
  status: RenewalStatus;
  currency: "USDT_TRC20" | "XOF";
  amount: string;
  grace_until: Date;
  payin_id: string | null;
  failure_reason: string | null;
  paid_at: Date | null;
  failed_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export type NewSubscription = Omit<
  SubscriptionRow,
  "paused_at" | "cancelled_at" | "cancelled_by" | "updated_at" | "status"
>;

/** Inserts the subscription of an order, or nothing when that order already has one. */
export async function insertSubscription(db: Db, s: NewSubscription): Promise<SubscriptionRow | undefined> {
  return (await db.query<SubscriptionRow>(
    `INSERT INTO subscriptions (id, merchant_id, is_sandbox, paylink_id, first_order_id, status,
       customer_email, customer_name, customer_phone, currency, amount, description, first_rail,
       billing_interval, interval_count, anchor_at, anchor_index, current_period_index, current_period_start,
       current_period_end, next_period_index, next_period_start, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, 'ACTIVE', $6, $7, $8, $9, $10::numeric, $11, $12, $13, $14, $15, $16, $17,
       $18, $19, $20, $21, $22, $22)
     ON CONFLICT (first_order_id) DO NOTHING RETURNING *`,
    [
      s.id,
      s.merchant_id,
      s.is_sandbox,
      s.paylink_id,
      s.first_order_id,
      s.customer_email,
      s.customer_name,
      s.customer_phone,
      s.currency,
      s.amount,
      s.description,
      s.first_rail,
      s.billing_interval,
      s.interval_count,
      s.anchor_at,
      s.anchor_index,
      s.current_period_index,
      s.current_period_start,
      s.current_period_end,
      s.next_period_index,
      s.next_period_start,
      s.created_at,
    ],
  ))[0];
}

export async function findSubscription(
  db: Db,
  id: string,
  options: { lock?: boolean } = {},
): Promise<SubscriptionRow | undefined> {
  return (await db.query<SubscriptionRow>(
    `SELECT * FROM subscriptions WHERE id = $1${options.lock ? " FOR UPDATE" : ""}`,
    [id],
  ))[0];
}

export async function findSubscriptionOf(
  db: Db,
  owner: { merchantId: string; isSandbox: boolean },
  id: string,
): Promise<SubscriptionRow | undefined> {
  return (await db.query<SubscriptionRow>(
    "SELECT * FROM subscriptions WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3",
    [id, owner.merchantId, owner.isSandbox],
  ))[0];
}

export async function listSubscriptionsOf(
  db: Db,
  owner: { merchantId: string; isSandbox: boolean },
  q: { page: number; limit: number; status?: string; paylinkId?: string },
): Promise<{ rows: SubscriptionRow[]; total: number }> {
  const where = `merchant_id = $1 AND is_sandbox = $2
     AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR paylink_id = $4)`;
  const params = [owner.merchantId, owner.isSandbox, q.status ?? null, q.paylinkId ?? null];
  const rows = await db.query<SubscriptionRow>(
    `SELECT * FROM subscriptions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6`,
    [...params, q.limit, (q.page - 1) * q.limit],
  );
  const [{ n }] = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM subscriptions WHERE ${where}`,
    params,
  );
  return { rows, total: Number(n) };
}

/** Moves a subscription from `from` to `to` with `patch`, or answers undefined when it was not in `from`. */
export async function moveSubscription(
  db: Db,
  id: string,
  from: SubscriptionStatus,
  to: SubscriptionStatus,
  patch: Partial<
    Pick<
      SubscriptionRow,
      | "paused_at"
      | "cancelled_at"
      | "cancelled_by"
      | "amount"
      | "billing_interval"
      | "interval_count"
      | "anchor_at"
      | "anchor_index"
      | "next_period_index"
      | "next_period_start"
      | "current_period_index"
      | "current_period_start"
      | "current_period_end"
    >
  >,
  now: Date,
): Promise<SubscriptionRow | undefined> {
  const columns = Object.keys(patch) as Array<keyof typeof patch>;
  const sets = columns.map((c, i) => `${c} = $${i + 5}${c === "amount" ? "::numeric" : ""}`);
  return (await db.query<SubscriptionRow>(
    `UPDATE subscriptions SET status = $3, updated_at = $4${sets.length ? ", " + sets.join(", ") : ""}
      WHERE id = $1 AND status = $2 RETURNING *`,
    [id, from, to, now, ...columns.map((c) => patch[c])],
  ))[0];
}

/** (subscription, period) pairs whose renewal is due: ACTIVE or PAST_DUE and the next period has begun. */
export async function listDueRenewals(
  db: Db,
  now: Date,
  limit: number,
): Promise<Array<{ id: string; next_period_index: number }>> {
  return await db.query(
    `SELECT s.id, s.next_period_index FROM subscriptions s
      WHERE s.status IN ('ACTIVE', 'PAST_DUE') AND s.next_period_start <= $1
        -- A merchant that takes no payments starts no renewals; they wait until it is ACTIVE again.
        AND EXISTS (SELECT 1 FROM merchants m WHERE m.id = s.merchant_id AND m.status = 'ACTIVE')
      ORDER BY s.next_period_start LIMIT $2`,
    [now, limit],
  );
}

/**
 * Claims the renewal of period `periodIndex` in ONE statement: it is written only if the subscription is
 * still billing, that period is still its next one and has begun, and no renewal of it exists. Whoever
 * runs it second (another process, a repeated message) gets nothing back.
 */
export async function claimRenewal(
  db: Db,
  r: {
    id: string;
    subscriptionId: string;
    periodIndex: number;
    periodEnd: Date;
    graceUntil: Date;
    now: Date;
  },
): Promise<RenewalRow | undefined> {
  return (await db.query<RenewalRow>(
    `INSERT INTO subscription_renewals (id, subscription_id, merchant_id, is_sandbox, period_index,
       period_start, period_end, status, currency, amount, grace_until, created_at, updated_at)
     SELECT $1, s.id, s.merchant_id, s.is_sandbox, s.next_period_index, s.next_period_start, $4, 'PENDING',
       s.currency, s.amount, $5, $6, $6
       FROM subscriptions s
      WHERE s.id = $2 AND s.next_period_index = $3 AND s.status IN ('ACTIVE', 'PAST_DUE')
        AND s.next_period_start <= $6
     ON CONFLICT (subscription_id, period_index) DO NOTHING
     RETURNING *`,
    [r.id, r.subscriptionId, r.periodIndex, r.periodEnd, r.graceUntil, r.now],
  ))[0];
}

/** After a claim: the subscription's next renewal is the period after the claimed one. */
export async function advanceNextPeriod(
  db: Db,
  id: string,
  claimed: { periodIndex: number; periodEnd: Date },
  now: Date,
): Promise<SubscriptionRow> {
  return (await db.query<SubscriptionRow>(
    `UPDATE subscriptions SET next_period_index = $2 + 1, next_period_start = $3, updated_at = $4
      WHERE id = $1 AND next_period_index = $2 RETURNING *`,
    [id, claimed.periodIndex, claimed.periodEnd, now],
  ))[0];
}

export async function findRenewal(
  db: Db,
  id: string,
  options: { lock?: boolean } = {},
): Promise<RenewalRow | undefined> {
  return (await db.query<RenewalRow>(
    `SELECT * FROM subscription_renewals WHERE id = $1${options.lock ? " FOR UPDATE" : ""}`,
    [id],
  ))[0];
}

export async function findRenewalByPayin(db: Db, payinId: string): Promise<RenewalRow | undefined> {
  return (await db.query<RenewalRow>(
    "SELECT * FROM subscription_renewals WHERE payin_id = $1",
    [payinId],
  ))[0];
}

export async function listRenewalsOf(db: Db, subscriptionId: string, limit = 100): Promise<RenewalRow[]> {
  return await db.query<RenewalRow>(
    `SELECT * FROM subscription_renewals WHERE subscription_id = $1 ORDER BY period_index DESC LIMIT $2`,
    [subscriptionId, limit],
  );
}

export async function setRenewalPayin(db: Db, id: string, payinId: string, now: Date): Promise<void> {
  await db.query(
    "UPDATE subscription_renewals SET payin_id = $2, updated_at = $3 WHERE id = $1 AND status = 'PENDING'",
    [id, payinId, now],
  );
}

/** PENDING -> `to`; undefined when the renewal had already left PENDING. */
export async function finishRenewal(
  db: Db,
  id: string,
  to: "PAID" | "FAILED" | "CANCELLED",
  now: Date,
  reason: string | null = null,
): Promise<RenewalRow | undefined> {
  return (await db.query<RenewalRow>(
    `UPDATE subscription_renewals SET status = $2, updated_at = $3, failure_reason = $4,
       paid_at = CASE WHEN $2 = 'PAID' THEN $3 ELSE paid_at END,
       failed_at = CASE WHEN $2 = 'FAILED' THEN $3 ELSE failed_at END
      WHERE id = $1 AND status = 'PENDING' RETURNING *`,
    [id, to, now, reason],
  ))[0];
}

/** A payment that arrived after its renewal was closed: recorded for the merchant, status unchanged. */
export async function stampLatePayment(db: Db, id: string, now: Date): Promise<void> {
  await db.query(
    "UPDATE subscription_renewals SET paid_at = COALESCE(paid_at, $2), updated_at = $2 WHERE id = $1",
    [id, now],
  );
}

/** Open renewals of a subscription (for cancellation). */
export async function listOpenRenewals(db: Db, subscriptionId: string): Promise<RenewalRow[]> {
  return await db.query<RenewalRow>(
    `SELECT * FROM subscription_renewals WHERE subscription_id = $1 AND status = 'PENDING'
      ORDER BY period_index FOR UPDATE`,
    [subscriptionId],
  );
}

/**
 * Open renewals past their grace whose last pay-in (if any) ended without money: they fail. A pay-in
 * still running keeps its renewal open until it ends.
 */
export async function listRenewalsPastGrace(db: Db, now: Date, limit: number): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT r.id FROM subscription_renewals r LEFT JOIN payins p ON p.id = r.payin_id
      WHERE r.status = 'PENDING' AND r.grace_until <= $1
        AND (p.id IS NULL OR p.status IN ('EXPIRED', 'FAILED'))
      ORDER BY r.grace_until LIMIT $2`,
    [now, limit],
  );
  return rows.map((r) => r.id);
}

export type PaylinkSchedule = {
  id: string;
  merchant_id: string;
  is_sandbox: boolean;
  title: string | null;
  type: string;
  recurring_interval: BillingInterval | null;
  recurring_interval_count: number | null;
};

/** What a subscription needs of its paylink: whether it recurs, and how often. */
export async function findPaylinkSchedule(db: Db, paylinkId: string): Promise<PaylinkSchedule | undefined> {
  return (await db.query<PaylinkSchedule>(
    `SELECT id, merchant_id, is_sandbox, title, type, recurring_interval, recurring_interval_count
       FROM paylinks WHERE id = $1`,
    [paylinkId],
  ))[0];
}
