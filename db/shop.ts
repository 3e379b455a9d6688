// SQL of the public shop (migration 020): rate locks, page views, and the merchant's reads of a
// paylink's orders (list, export in pages, stats). Orders themselves are written by db/paylink_orders.ts.
import type { OrderItemRow, OrderRow } from "./paylink_orders.ts";
import type { Db } from "./mod.ts";

export type RateLockRow = {
  id: string;
  paylink_id: string;
  is_sandbox: boolean;
  rail: "USDT_TRC20" | "CARD" | "MOBILE_MONEY";
  from_currency: "USDT_TRC20" | "XOF";
  to_currency: "USDT_TRC20" | "XOF";
  rate: string;
  rate_as_of: Date;
  rate_source: string;
  expires_at: Date;
  used_at: Date | null;
  order_id: string | null;
  created_at: Date;
};

const LOCK_COLUMNS = `id, paylink_id, is_sandbox, rail, from_currency, to_currency, rate::text AS rate,
  rate_as_of, rate_source, expires_at, used_at, order_id, created_at`;

export async function insertRateLock(
  db: Db,
  l: Omit<RateLockRow, "used_at" | "order_id">,
): Promise<RateLockRow> {
  return (await db.query<RateLockRow>(
    `INSERT INTO paylink_rate_locks (id, paylink_id, is_sandbox, rail, from_currency, to_currency, rate,
       rate_as_of, rate_source, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::numeric, $8, $9, $10, $11) RETURNING ${LOCK_COLUMNS}`,
    [
      l.id,
      l.paylink_id,
      l.is_sandbox,
      l.rail,
      l.from_currency,
      l.to_currency,
      l.rate,
      l.rate_as_of,
      l.rate_source,
      l.expires_at,
      l.created_at,
    ],
  ))[0];
}

/**
 * Marks the lock used by `orderId` if it is this paylink's, unused and unexpired at `now`: one
 * conditional UPDATE, so two checkouts presenting the same lock cannot both take it.
 */
export async function consumeRateLock(
  db: Db,
  p: { id: string; paylinkId: string; orderId: string; now: Date },
): Promise<RateLockRow | undefined> {
  return (await db.query<RateLockRow>(
    `UPDATE paylink_rate_locks SET used_at = $4, order_id = $3
      WHERE id = $1 AND paylink_id = $2 AND used_at IS NULL AND expires_at > $4
      RETURNING ${LOCK_COLUMNS}`,
    [p.id, p.paylinkId, p.orderId, p.now],
  ))[0];
}

export async function findRateLock(db: Db, id: string): Promise<RateLockRow | undefined> {
  return (await db.query<RateLockRow>(`SELECT ${LOCK_COLUMNS} FROM paylink_rate_locks WHERE id = $1`, [id]))[
    0
  ];
}

/** Locks past their end by more than `before` are of no use to anyone: deleted by the maintenance cron. */
export async function deleteOldRateLocks(db: Db, before: Date): Promise<number> {
  const rows = await db.query<{ id: string }>(
    "DELETE FROM paylink_rate_locks WHERE expires_at < $1 RETURNING id",
    [before],
  );
  return rows.length;
}

export async function countView(db: Db, paylinkId: string, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO paylink_view_counts (paylink_id, day, shard, views) VALUES ($1, $2::date, $3, 1)
     ON CONFLICT (paylink_id, day, shard) DO UPDATE SET views = paylink_view_counts.views + 1`,
    [paylinkId, now.toISOString().slice(0, 10), Math.floor(Math.random() * 8)],
  );
}

export type OrderWithPayin = OrderRow & { payin_status: string | null };

export async function listOrdersOfPaylink(
  db: Db,
  paylinkId: string,
  page: { page: number; limit: number },
): Promise<{ rows: OrderRow[]; total: number }> {
  const rows = await db.query<OrderRow>(
    `SELECT * FROM paylink_orders WHERE paylink_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
    [paylinkId, page.limit, (page.page - 1) * page.limit],
  );
  const [{ total }] = await db.query<{ total: number }>(
    "SELECT count(*)::int AS total FROM paylink_orders WHERE paylink_id = $1",
    [paylinkId],
  );
  return { rows, total };
}

/** One page of the export, oldest first, after the (created_at, id) cursor: keyset paging never skips. */
export async function ordersAfter(
  db: Db,
  paylinkId: string,
  after: { createdAt: Date; id: string } | null,
  limit: number,
): Promise<Array<OrderRow & { items: OrderItemRow[] }>> {
  const rows = await db.query<OrderRow>(
    `SELECT * FROM paylink_orders WHERE paylink_id = $1
        AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3::text))
      ORDER BY created_at, id LIMIT $4`,
    [paylinkId, after?.createdAt ?? null, after?.id ?? "", limit],
  );
  if (rows.length === 0) return [];
  const items = await db.query<OrderItemRow>(
    `SELECT id::text, order_id, product_id, product_name, quantity, unit_price::text AS unit_price,
            line_total::text AS line_total, stock_reserved
       FROM paylink_order_items WHERE order_id = ANY($1::text[]) ORDER BY id`,
    [rows.map((r) => r.id)],
  );
  return rows.map((r) => ({ ...r, items: items.filter((i) => i.order_id === r.id) }));
}

/** Digital items of a paid order, with their delivery links: only ever read once the order is paid. */
export async function paidDigitalItems(
  db: Db,
  payinId: string,
): Promise<Array<{ name: string; url: string }>> {
  return await db.query<{ name: string; url: string }>(
    `SELECT i.product_name AS name, p.digital_url AS url
       FROM paylink_orders o
       JOIN paylink_order_items i ON i.order_id = o.id
       JOIN paylink_products p ON p.id = i.product_id
      WHERE o.payin_id = $1 AND o.paid_at IS NOT NULL AND o.status IN ('CONFIRMED', 'OVERPAID')
        AND p.product_type = 'DIGITAL' AND p.digital_url IS NOT NULL
      ORDER BY i.id`,
    [payinId],
  );
}

export type PaylinkStatsRow = {
  views: string;
  checkouts: number;
  paid: number;
  revenue: Array<{ currency: string; rail: string; amount: string; orders: number }>;
  sales: Array<{ currency: string; amount: string }>;
};

/** Orders count as paid when their pay-in is CONFIRMED or OVERPAID (an underpaid order is not a sale). */
export async function paylinkStats(db: Db, paylinkId: string): Promise<PaylinkStatsRow> {
  const [views] = await db.query<{ views: string }>(
    "SELECT COALESCE(sum(views), 0)::text AS views FROM paylink_view_counts WHERE paylink_id = $1",
    [paylinkId],
  );
  const [counts] = await db.query<{ checkouts: number; paid: number }>(
    `SELECT count(*)::int AS checkouts,
            count(*) FILTER (WHERE status IN ('CONFIRMED', 'OVERPAID'))::int AS paid
       FROM paylink_orders WHERE paylink_id = $1`,
    [paylinkId],
  );
  const revenue = await db.query<{ currency: string; rail: string; amount: string; orders: number }>(
    `SELECT pay_currency AS currency, rail, sum(pay_amount)::text AS amount, count(*)::int AS orders
       FROM paylink_orders WHERE paylink_id = $1 AND status IN ('CONFIRMED', 'OVERPAID')
      GROUP BY pay_currency, rail ORDER BY pay_currency, rail`,
    [paylinkId],
  );
  const sales = await db.query<{ currency: string; amount: string }>(
    `SELECT currency, sum(total)::text AS amount FROM paylink_orders
      WHERE paylink_id = $1 AND status IN ('CONFIRMED', 'OVERPAID') GROUP BY currency ORDER BY currency`,
    [paylinkId],
  );
  return { views: views.views, checkouts: counts.checkouts, paid: counts.paid, revenue, sales };
}
