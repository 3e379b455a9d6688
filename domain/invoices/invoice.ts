// A printable invoice of a paid sale: a paylink order (its products, discount and total) or a pay-in made
// through the API (its amount, and the network fee the customer sent with it). The content is data only,
// in no language, so the French and English PDFs carry the same signature. A pay-in that paid an order is
// invoiced as that order, under the order's number: one sale, one invoice.
import { findMerchant } from "../../db/merchants.ts";
import { findOrder, findOrderByPayin, listOrderItems, type OrderRow } from "../../db/paylink_orders.ts";
import { findPayin, type PayinRow } from "../../db/payins.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isWellFormedId } from "../ids.ts";
import { type Currency, Decimal, formatAmount } from "../money.ts";

/** A sale is invoiced once it is paid in full. */
export const PAID_STATUSES = ["CONFIRMED", "OVERPAID"] as const;

export type InvoiceLine = {
  kind: "ITEM" | "NETWORK_FEE";
  description: string;
  quantity: number;
  unitPrice: string;
  total: string;
};

export type InvoiceContent = {
  version: 1;
  number: string;
  kind: "ORDER" | "PAYIN";
  mode: "live" | "sandbox";
  issuedAt: string;
  seller: { merchantId: string; name: string };
  customer: { name: string | null; email: string | null; phone: string | null };
  currency: Currency;
  lines: InvoiceLine[];
  subtotal: string;
  discount: string;
  promoCode: string | null;
  total: string;
  payment: {
    payinId: string;
    method: string;
    currency: Currency;
    amountReceived: string;
    rate: string | null;
    reference: string | null;
    confirmedAt: string;
  };
};

type Owner = { merchantId: string; isSandbox: boolean };

/** The invoice content of `id` (pay_ or ord_) for its owner; NOT_FOUND for anyone else's or a malformed id. */
export async function invoiceContent(
  deps: Pick<Deps, "db">,
  owner: Owner,
  id: string,
): Promise<InvoiceContent> {
  const found = await findSale(deps, id);
  if (!found || found.payin.merchant_id !== owner.merchantId || found.payin.is_sandbox !== owner.isSandbox) {
    throw new AppError("NOT_FOUND", "No paid pay-in or order with this id");
  }
  return await contentOf(deps, found);
}

/** Finds the sale behind an id, whoever owns it (the verification route has no owner). */
export async function findSale(
  deps: Pick<Deps, "db">,
  id: string,
): Promise<{ payin: PayinRow; order?: OrderRow } | undefined> {
  if (isWellFormedId("ord", id)) {
    const order = await findOrder(deps.db, id);
    const payin = order?.payin_id ? await findPayin(deps.db, order.payin_id) : undefined;
    if (!order) return undefined;
    // An order nobody has paid yet has no pay-in: it is not paid (its owner is told so below).
    return { payin: payin ?? unpaidStandIn(order), order };
  }
  if (!isWellFormedId("pay", id)) return undefined;
  const payin = await findPayin(deps.db, id);
  if (!payin) return undefined;
  const order = await findOrderByPayin(deps.db, payin.id);
  return { payin, order };
}

function unpaidStandIn(order: OrderRow): PayinRow {
  return {
    merchant_id: order.merchant_id,
    is_sandbox: order.is_sandbox,
    status: "AWAITING_PAYMENT",
  } as PayinRow;
}

export async function contentOf(
  deps: Pick<Deps, "db">,
  sale: { payin: PayinRow; order?: OrderRow },
): Promise<InvoiceContent> {
  const { payin, order } = sale;
  if (!(PAID_STATUSES as readonly string[]).includes(payin.status) || !payin.confirmed_at) {
    throw new AppError(
      "INVALID_TRANSACTION_STATUS",
      `Only a sale paid in full has an invoice; this one is ${payin.status ?? "not paid"}`,
    );
  }
  const merchant = await findMerchant(deps.db, payin.merchant_id);
  const payment = {
    payinId: payin.id,
    method: payin.payment_method,
    currency: payin.currency,
    amountReceived: formatAmount(payin.amount_received, payin.currency),
    rate: order?.fx_rate ?? payin.fx_rate ?? null,
    reference: payin.tx_hash ?? payin.provider_ref ?? null,
    confirmedAt: new Date(payin.confirmed_at).toISOString(),
  };
  const base = {
    version: 1 as const,
    mode: payin.is_sandbox ? "sandbox" as const : "live" as const,
    issuedAt: new Date(order?.paid_at ?? payin.confirmed_at).toISOString(),
    seller: {
      merchantId: payin.merchant_id,
      name: merchant?.display_name ?? merchant?.name ?? payin.merchant_id,
    },
    payment,
  };
  if (order) {
    const items = await listOrderItems(deps.db, [order.id]);
    const money = (v: Decimal.Value) => formatAmount(v, order.currency);
    return {
      ...base,
      number: order.id,
      kind: "ORDER",
      customer: {
        name: order.customer_name ?? payin.customer_name,
        email: order.customer_email ?? payin.customer_email,
        phone: order.customer_phone ?? payin.customer_phone,
      },
      currency: order.currency,
      lines: items.map((i) => ({
        kind: "ITEM",
        description: i.product_name,
        quantity: i.quantity,
        unitPrice: money(i.unit_price),
        total: money(i.line_total),
      })),
      subtotal: money(order.subtotal),
      discount: money(order.discount),
      promoCode: order.promo_code,
      total: money(order.total),
    };
  }
  const money = (v: Decimal.Value) => formatAmount(v, payin.currency);
  const description = typeof payin.metadata?.description === "string"
    ? payin.metadata.description
    : payin.external_ref ?? "";
  const lines: InvoiceLine[] = [
    { kind: "ITEM", description, quantity: 1, unitPrice: money(payin.amount), total: money(payin.amount) },
  ];
  if (new Decimal(payin.network_fee).gt(0)) {
    const fee = money(payin.network_fee);
    lines.push({ kind: "NETWORK_FEE", description: "", quantity: 1, unitPrice: fee, total: fee });
  }
  const total = lines.reduce((s, l) => s.plus(l.total), new Decimal(0));
  return {
    ...base,
    number: payin.id,
    kind: "PAYIN",
    customer: { name: payin.customer_name, email: payin.customer_email, phone: payin.customer_phone },
    currency: payin.currency,
    lines,
    subtotal: money(total),
    discount: money(0),
    promoCode: null,
    total: money(total),
  };
}
