// SQL for paylink orders and their items (migration 019): written by the checkout, following their pay-in.
import type { Db } from "./mod.ts";

export type OrderRow = {
  id: string;
  paylink_id: string;
  merchant_id: string;
  is_sandbox: boolean;
  status: string;
  customer_email: string | null;
  customer_name: string | null;
  customer_phone: string | null;
  customer_address: string | null;
  currency: "USDT_TRC20" | "XOF";
  subtotal: string;
  discount: string;
  total: string;
  promo_code_id: string | null;
  promo_code: string | null;
  rail: string | null;
  pay_amount: string | null;
  pay_currency: string | null;
  fx_rate: string | null;
  payin_id: string | null;
  released_at: Date | null;
  paid_at: Date | null;
  /** The public routes' client address that placed it (migration 024); null before that. */
  client_address: string | null;
  /** Until when an unpaid order holds its stock, promo and paylink uses. */
  hold_until: Date;
  /** Paid after its hold was released, when its units were no longer all there to take back. */
  oversold: boolean;
  created_at: Date;
  updated_at: Date;
};

export type OrderItemRow = {
  id: string;
  order_id: string;
  product_id: string;
  product_name: string;
  quantity: number;
  unit_price: string;
  line_total: string;
  stock_reserved: boolean;
};

export type NewOrder = {
  id: string;
  paylinkId: string;
  merchantId: string;
  isSandbox: boolean;
  customer: { email?: string | null; name?: string | null; phone?: string | null; address?: string | null };
  currency: string;
  subtotal: string;
  discount: string;
  total: string;
  promoCodeId: string | null;
  promoCode: string | null;
  clientAddress: string | null;
  holdUntil: Date;
  items: Array<
    {
      productId: string;
      productName: string;
      quantity: number;
      unitPrice: string;
      lineTotal: string;
      stockReserved: boolean;
    }
  >;
  now: Date;
};

export async function insertOrder(db: Db, o: NewOrder): Promise<{ order: OrderRow; items: OrderItemRow[] }> {
  const [order] = await db.query<OrderRow>(
    `INSERT INTO paylink_orders (id, paylink_id, merchant_id, is_sandbox, customer_email, customer_name,
       customer_phone, customer_address, currency, subtotal, discount, total, promo_code_id, promo_code,
       client_address, hold_until, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::numeric, $11::numeric, $12::numeric, $13, $14, $16, $17,
             $15, $15)
     RETURNING *`,
    [
      o.id,
      o.paylinkId,
      o.merchantId,
      o.isSandbox,
      o.customer.email ?? null,
      o.customer.name ?? null,
      o.customer.phone ?? null,
      o.customer.address ?? null,
      o.currency,
      o.subtotal,
      o.discount,
      o.total,
      o.promoCodeId,
      o.promoCode,
      o.now,
      o.clientAddress,
      o.holdUntil,
    ],
  );
  const items = await db.query<OrderItemRow>(
    `INSERT INTO paylink_order_items (order_id, paylink_id, merchant_id, is_sandbox, product_id, product_name,
       quantity, unit_price, line_total, stock_reserved)
     SELECT $1, $2, $3, $4, i.product_id, i.product_name, i.quantity, i.unit_price::numeric,
            i.line_total::numeric, i.stock_reserved
       FROM jsonb_to_recordset($5::text::jsonb) AS i(product_id text, product_name text, quantity integer,
            unit_price text, line_total text, stock_reserved boolean)
     RETURNING id::text, order_id, product_id, product_name, quantity, unit_price, line_total, stock_reserved`,
    [
      o.id,
      o.paylinkId,
      o.merchantId,
      o.isSandbox,
      JSON.stringify(o.items.map((i) => ({
        product_id: i.productId,
        product_name: i.productName,
        quantity: i.quantity,
        unit_price: i.unitPrice,
        line_total: i.lineTotal,
        stock_reserved: i.stockReserved,
      }))),
    ],
  );
  return { order, items };
}

export async function setOrderPayin(
  db: Db,
  orderId: string,
  p: {
    payinId: string;
    rail: string;
    payAmount: string;
    payCurrency: string;
    fxRate: string | null;
    now: Date;
  },
): Promise<OrderRow | undefined> {
  return (await db.query<OrderRow>(
    `UPDATE paylink_orders SET payin_id = $2, rail = $3, pay_amount = $4::numeric, pay_currency = $5,
       fx_rate = $6::numeric, updated_at = $7
      WHERE id = $1 AND payin_id IS NULL RETURNING *`,
    [orderId, p.payinId, p.rail, p.payAmount, p.payCurrency, p.fxRate, p.now],
  ))[0];
}

export async function findOrder(db: Db, orderId: string, options: { lock?: boolean } = {}) {
  return (await db.query<OrderRow>(
    `SELECT * FROM paylink_orders WHERE id = $1${options.lock ? " FOR UPDATE" : ""}`,
    [orderId],
  ))[0];
}

export async function findOrderByPayin(db: Db, payinId: string, options: { lock?: boolean } = {}) {
  return (await db.query<OrderRow>(
    `SELECT * FROM paylink_orders WHERE payin_id = $1${options.lock ? " FOR UPDATE" : ""}`,
    [payinId],
  ))[0];
}

export async function listOrderItems(db: Db, orderIds: string[]): Promise<OrderItemRow[]> {
  if (orderIds.length === 0) return [];
  return await db.query<OrderItemRow>(
    `SELECT id::text, order_id, product_id, product_name, quantity, unit_price, line_total, stock_reserved
       FROM paylink_order_items WHERE order_id = ANY($1::text[]) ORDER BY id`,
    [orderIds],
  );
}

export async function setOrderStatus(
  db: Db,
  orderId: string,
  status: string,
  now: Date,
  options: { released?: boolean; paid?: boolean } = {},
): Promise<OrderRow> {
  return (await db.query<OrderRow>(
    `UPDATE paylink_orders SET status = $2, updated_at = $3,
       released_at = CASE WHEN $4::boolean THEN COALESCE(released_at, $3) ELSE released_at END,
       paid_at = CASE WHEN $5::boolean THEN COALESCE(paid_at, $3) ELSE paid_at END
      WHERE id = $1 RETURNING *`,
    [orderId, status, now, options.released ?? false, options.paid ?? false],
  ))[0];
}

/**
 * Orders still holding stock, promo and paylink uses that must give them back: their pay-in ended without
 * money (EXPIRED, FAILED), or their hold ended (`hold_until` before `now`) unpaid while no payment is on
 * its way (no pay-in, or one still AWAITING_PAYMENT / PENDING; a CONFIRMING one keeps its hold).
 */
export async function listOrdersToRelease(db: Db, now: Date, limit: number): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT o.id FROM paylink_orders o LEFT JOIN payins p ON p.id = o.payin_id
      WHERE o.released_at IS NULL
        AND ((p.id IS NOT NULL AND p.status IN ('EXPIRED', 'FAILED'))
             OR (o.paid_at IS NULL AND o.hold_until < $1
                 AND (p.id IS NULL OR p.status IN ('AWAITING_PAYMENT', 'PENDING'))))
      ORDER BY o.created_at LIMIT $2`,
    [now, limit],
  );
  return rows.map((r) => r.id);
}

export type HeldByClient = {
  /** Per stock-tracked product: units every unpaid order holds, and those this client's hold. */
  units: Map<string, { all: number; mine: number }>;
  /** This client's unpaid orders on the paylink, and how many of them hold each promo code. */
  orders: number;
  promoUses: Map<string, number>;
};

/**
 * What unpaid, unreleased orders hold on a paylink, and this client address's share. Runs after the
 * paylink row is locked by the checkout, so concurrent checkouts of one paylink read it one at a time.
 */
export async function heldOnPaylink(db: Db, paylinkId: string, clientAddress: string): Promise<HeldByClient> {
  const units = await db.query<{ product_id: string; all_units: number; mine: number }>(
    `SELECT i.product_id, sum(i.quantity)::int AS all_units,
            COALESCE(sum(i.quantity) FILTER (WHERE o.client_address = $2), 0)::int AS mine
       FROM paylink_orders o JOIN paylink_order_items i ON i.order_id = o.id
      WHERE o.paylink_id = $1 AND o.released_at IS NULL AND o.paid_at IS NULL AND i.stock_reserved
      GROUP BY i.product_id`,
    [paylinkId, clientAddress],
  );
  const mine = await db.query<{ promo_code_id: string | null; n: number }>(
    `SELECT promo_code_id, count(*)::int AS n FROM paylink_orders
      WHERE paylink_id = $1 AND released_at IS NULL AND paid_at IS NULL AND client_address = $2
      GROUP BY promo_code_id`,
    [paylinkId, clientAddress],
  );
  return {
    units: new Map(units.map((r) => [r.product_id, { all: r.all_units, mine: r.mine }])),
    orders: mine.reduce((sum, r) => sum + r.n, 0),
    promoUses: new Map(mine.filter((r) => r.promo_code_id).map((r) => [r.promo_code_id!, r.n])),
  };
}

export async function markOversold(db: Db, orderId: string, now: Date): Promise<void> {
  await db.query("UPDATE paylink_orders SET oversold = true, updated_at = $2 WHERE id = $1", [orderId, now]);
}

export async function payinStatus(db: Db, payinId: string): Promise<string | undefined> {
  return (await db.query<{ status: string }>("SELECT status FROM payins WHERE id = $1", [payinId]))[0]
    ?.status;
}
