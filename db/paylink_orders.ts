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
       created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::numeric, $11::numeric, $12::numeric, $13, $14, $15, $15)
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
 * Orders still holding stock, promo and paylink uses whose pay-in ended without money (EXPIRED, FAILED),
 * or that never got a pay-in within `orphanBefore` (a checkout that crashed after reserving).
 */
export async function listOrdersToRelease(db: Db, orphanBefore: Date, limit: number): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT o.id FROM paylink_orders o LEFT JOIN payins p ON p.id = o.payin_id
      WHERE o.released_at IS NULL
        AND ((p.id IS NOT NULL AND p.status IN ('EXPIRED', 'FAILED'))
             OR (o.payin_id IS NULL AND o.created_at < $1))
      ORDER BY o.created_at LIMIT $2`,
    [orphanBefore, limit],
  );
  return rows.map((r) => r.id);
}

export async function payinStatus(db: Db, payinId: string): Promise<string | undefined> {
  return (await db.query<{ status: string }>("SELECT status FROM payins WHERE id = $1", [payinId]))[0]
    ?.status;
}
