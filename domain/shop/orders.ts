// A merchant's view of a paylink's orders: the list (customer, items, amount, rail, status), the CSV of
// all of them streamed page by page, and the numbers (views, checkouts, conversion, revenue per currency
// and rail). Orders follow their pay-in (domain/payins/transition.ts calls the paylinks' followPayin).
import { stringify } from "csv-stringify/sync";
import type { OrderItemRow, OrderRow } from "../../db/paylink_orders.ts";
import { listOrderItems } from "../../db/paylink_orders.ts";
import * as shopDb from "../../db/shop.ts";
import type { Deps } from "../deps.ts";
import { Decimal } from "../money.ts";
import { getPaylinkRow, type Owner } from "../paylinks/queries.ts";
import { orderView } from "../paylinks/view.ts";

const PAID = new Set(["CONFIRMED", "OVERPAID"]);

/** An order as its merchant reads it; a paid order's digital items carry their delivery link. */
export function merchantOrderView(
  o: OrderRow,
  items: OrderItemRow[],
  digital: Map<string, string>,
) {
  const view = orderView(o, items);
  const paid = PAID.has(o.status) && o.paid_at !== null;
  return {
    ...view,
    items: view.items.map((i) => ({ ...i, digitalUrl: paid ? digital.get(i.productId) ?? null : null })),
    fxRate: o.fx_rate === null ? null : new Decimal(o.fx_rate).toFixed(),
    /** Paid after its hold was released, when its units were no longer all in stock: the merchant decides. */
    oversold: o.oversold ?? false,
  };
}

async function digitalLinks(deps: Pick<Deps, "db">, paylinkId: string): Promise<Map<string, string>> {
  const rows = await deps.db.query<{ id: string; digital_url: string }>(
    `SELECT id, digital_url FROM paylink_products
      WHERE paylink_id = $1 AND product_type = 'DIGITAL' AND digital_url IS NOT NULL`,
    [paylinkId],
  );
  return new Map(rows.map((r) => [r.id, r.digital_url]));
}

export async function listPaylinkOrders(
  deps: Pick<Deps, "db">,
  owner: Owner,
  paylinkId: string,
  page: { page: number; limit: number },
) {
  const paylink = await getPaylinkRow(deps, owner, paylinkId);
  const { rows, total } = await shopDb.listOrdersOfPaylink(deps.db, paylink.id, page);
  const items = await listOrderItems(deps.db, rows.map((r) => r.id));
  const digital = await digitalLinks(deps, paylink.id);
  return {
    items: rows.map((o) => merchantOrderView(o, items.filter((i) => i.order_id === o.id), digital)),
    total,
  };
}

export const EXPORT_COLUMNS = [
  "orderId",
  "createdAt",
  "status",
  "customerName",
  "customerEmail",
  "customerPhone",
  "customerAddress",
  "items",
  "currency",
  "subtotal",
  "discount",
  "total",
  "promoCode",
  "paymentMethod",
  "payAmount",
  "payCurrency",
  "fxRate",
  "transactionId",
  "paidAt",
] as const;

/** Text a spreadsheet would run as a formula (=, +, -, @, tab, CR) is prefixed with a quote. */
export function neutralizeCell(value: string | null): string {
  if (value === null) return "";
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

function exportRow(o: OrderRow & { items: OrderItemRow[] }): string[] {
  const plain = (v: string | null) => v === null ? "" : new Decimal(v).toFixed();
  return [
    o.id,
    o.created_at.toISOString(),
    o.status,
    neutralizeCell(o.customer_name),
    neutralizeCell(o.customer_email),
    neutralizeCell(o.customer_phone),
    neutralizeCell(o.customer_address),
    neutralizeCell(o.items.map((i) => `${i.quantity} x ${i.product_name}`).join("; ")),
    o.currency,
    plain(o.subtotal),
    plain(o.discount),
    plain(o.total),
    o.promo_code ?? "",
    o.rail ?? "",
    plain(o.pay_amount),
    o.pay_currency ?? "",
    plain(o.fx_rate),
    o.payin_id ?? "",
    o.paid_at ? o.paid_at.toISOString() : "",
  ];
}

/** Orders read per page of the export. */
export const EXPORT_PAGE = 500;

/**
 * Every order of the paylink as CSV, oldest first, streamed: each pull reads one page (keyset on
 * created_at and id) and writes it through csv-stringify, so memory stays flat whatever the count.
 * The paylink is checked before the first byte, so an unknown id is a plain NOT_FOUND answer.
 */
export async function exportPaylinkOrders(
  deps: Pick<Deps, "db">,
  owner: Owner,
  paylinkId: string,
): Promise<{ slug: string; stream: ReadableStream<Uint8Array> }> {
  const paylink = await getPaylinkRow(deps, owner, paylinkId);
  const encoder = new TextEncoder();
  let after: { createdAt: Date; id: string } | null = null;
  let headerSent = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const page = await shopDb.ordersAfter(deps.db, paylink.id, after, EXPORT_PAGE);
      const rows = page.map(exportRow);
      const text = stringify(rows, { header: !headerSent, columns: [...EXPORT_COLUMNS] });
      headerSent = true;
      if (text) controller.enqueue(encoder.encode(text));
      if (page.length < EXPORT_PAGE) {
        controller.close();
        return;
      }
      const last = page[page.length - 1];
      after = { createdAt: last.created_at, id: last.id };
    },
  });
  return { slug: paylink.slug, stream };
}

export type PaylinkStats = {
  paylinkId: string;
  views: number;
  checkouts: number;
  paidOrders: number;
  /** Paid orders per view, 4 decimals; null before the first view. */
  conversionRate: string | null;
  /** What paid orders asked, per currency and rail. */
  revenue: Array<{ currency: string; paymentMethod: string; amount: string; orders: number }>;
  /** Paid orders' totals in the paylink's own currency. */
  sales: Array<{ currency: string; amount: string }>;
};

export async function getPaylinkStats(
  deps: Pick<Deps, "db">,
  owner: Owner,
  paylinkId: string,
): Promise<PaylinkStats> {
  const paylink = await getPaylinkRow(deps, owner, paylinkId);
  const s = await shopDb.paylinkStats(deps.db, paylink.id);
  const views = Number(s.views);
  return {
    paylinkId: paylink.id,
    views,
    checkouts: s.checkouts,
    paidOrders: s.paid,
    conversionRate: views > 0 ? new Decimal(s.paid).div(views).toFixed(4, Decimal.ROUND_HALF_UP) : null,
    revenue: s.revenue.map((r) => ({
      currency: r.currency,
      paymentMethod: r.rail,
      amount: new Decimal(r.amount).toFixed(),
      orders: r.orders,
    })),
    sales: s.sales.map((r) => ({ currency: r.currency, amount: new Decimal(r.amount).toFixed() })),
  };
}
