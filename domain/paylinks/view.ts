// What the API answers for paylinks, products, promo codes and templates. Prices carry 18 fractional
// digits (the specification's product record); `digitalUrl` and internal fields never reach the public view,
// which is what a publishable key (a customer's browser) reads.
import type { Config } from "../../config.ts";
import { isPublishableKind, type KeyKind } from "../keys/api_keys.ts";
import type { PaylinkRow, ProductRow, PromoRow, TemplateRow } from "../../db/paylinks.ts";
import type { OrderItemRow, OrderRow } from "../../db/paylink_orders.ts";
import { Decimal } from "../money.ts";
import { effectiveStatus } from "./states.ts";

export const PRICE_DECIMALS = 18;

export function price18(value: Decimal.Value): string {
  return new Decimal(value).toFixed(PRICE_DECIMALS);
}

/** A plain decimal without trailing zeros (percentages, discount values). */
export function plainDecimal(value: Decimal.Value): string {
  return new Decimal(value).toFixed();
}

function iso(date: Date | null): string | null {
  return date ? new Date(date).toISOString() : null;
}

export function paymentUrlOf(config: Pick<Config, "publicUrl">, slug: string): string {
  return `${config.publicUrl}/pay/link/${slug}`;
}

export function imageUrlOf(config: Pick<Config, "publicUrl">, key: string | null): string | null {
  return key ? `${config.publicUrl}/v1/images/${key}` : null;
}

export function productView(config: Pick<Config, "publicUrl">, p: ProductRow) {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    price: price18(p.price),
    productType: p.product_type,
    digitalUrl: p.digital_url,
    imageKey: p.image_key,
    imageUrl: imageUrlOf(config, p.image_key),
    stockEnabled: p.stock_enabled,
    stockQty: p.stock_qty,
    lowStockThreshold: p.low_stock_threshold,
    isLowStock: p.stock_enabled && p.stock_qty <= p.low_stock_threshold,
    sortOrder: p.sort_order,
  };
}

/** A product as a customer may see it: no delivery link before payment, stock only as availability. */
export function publicProductView(config: Pick<Config, "publicUrl">, p: ProductRow) {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    price: price18(p.price),
    productType: p.product_type,
    imageKey: p.image_key,
    imageUrl: imageUrlOf(config, p.image_key),
    stockEnabled: p.stock_enabled,
    isLowStock: p.stock_enabled && p.stock_qty <= p.low_stock_threshold,
    soldOut: p.stock_enabled && p.stock_qty <= 0,
    sortOrder: p.sort_order,
  };
}

export function promoView(p: PromoRow) {
  return {
    id: p.id,
    code: p.code,
    discountType: p.discount_type,
    discountValue: plainDecimal(p.discount_value),
    maxUses: p.max_uses,
    useCount: p.use_count,
    expiresAt: iso(p.expires_at),
    isActive: p.is_active,
    createdAt: iso(p.created_at)!,
    updatedAt: iso(p.updated_at)!,
  };
}

export type PaylinkWithChildren = { paylink: PaylinkRow; products: ProductRow[]; promos: PromoRow[] };

/** What both views show: the page a customer sees before paying. */
function sharedPaylinkFields(config: Pick<Config, "publicUrl">, p: PaylinkRow, now: Date) {
  return {
    id: p.id,
    slug: p.slug,
    title: p.title,
    description: p.description,
    type: p.type,
    status: effectiveStatus(p, now),
    currency: p.currency,
    acceptedMethods: p.accepted_methods,
    category: p.category,
    paymentUrl: paymentUrlOf(config, p.slug),
    expiresAt: iso(p.expires_at),
    collectEmail: p.collect_email,
    collectName: p.collect_name,
    collectPhone: p.collect_phone,
    collectAddress: p.collect_address,
    recurringInterval: p.recurring_interval,
    recurringIntervalCount: p.recurring_interval_count,
    brandColor: p.brand_color,
    logoUrl: p.logo_url,
    coverImageKey: p.cover_image_key,
    coverImageUrl: imageUrlOf(config, p.cover_image_key),
    cancelUrl: p.cancel_url,
    feeBearer: p.fee_bearer,
    isSandbox: p.is_sandbox,
    createdAt: iso(p.created_at)!,
    updatedAt: iso(p.updated_at)!,
  };
}

export function paylinkView(
  config: Pick<Config, "publicUrl">,
  { paylink: p, products, promos }: PaylinkWithChildren,
  now: Date,
) {
  return {
    ...sharedPaylinkFields(config, p, now),
    name: p.name,
    products: products.map((x) => productView(config, x)),
    promoCodes: promos.map(promoView),
    useCount: p.use_count,
    maxUses: p.max_uses,
    ordersCount: p.orders_count,
    autoDisableOnDepletion: p.auto_disable_on_depletion,
    postPaymentAction: p.post_payment_action,
    successUrl: p.success_url,
  };
}

/**
 * A paylink as a customer's browser may read it (a publishable key): what the hosted page shows before
 * payment. Never its promo codes, counts of uses and orders, internal name, or what is delivered after
 * payment (digitalUrl, postPaymentAction, successUrl).
 */
export function publicPaylinkView(
  config: Pick<Config, "publicUrl">,
  { paylink: p, products }: PaylinkWithChildren,
  now: Date,
) {
  return {
    ...sharedPaylinkFields(config, p, now),
    products: products.map((x) => publicProductView(config, x)),
  };
}

/** The merchant's view for its secret and restricted keys, the public view for a publishable key. */
export function paylinkViewFor(
  reader: { kind: KeyKind },
  config: Pick<Config, "publicUrl">,
  found: PaylinkWithChildren,
  now: Date,
) {
  return isPublishableKind(reader.kind)
    ? publicPaylinkView(config, found, now)
    : paylinkView(config, found, now);
}

export function templateView(t: TemplateRow) {
  return { id: t.id, name: t.name, config: t.config, createdAt: iso(t.created_at)! };
}

export function orderView(o: OrderRow, items: OrderItemRow[]) {
  return {
    id: o.id,
    paylinkId: o.paylink_id,
    status: o.status,
    customerEmail: o.customer_email,
    customerName: o.customer_name,
    customerPhone: o.customer_phone,
    customerAddress: o.customer_address,
    currency: o.currency,
    items: items.map((i) => ({
      productId: i.product_id,
      name: i.product_name,
      quantity: i.quantity,
      unitPrice: price18(i.unit_price),
      lineTotal: price18(i.line_total),
    })),
    subtotal: price18(o.subtotal),
    discount: price18(o.discount),
    total: price18(o.total),
    promoCode: o.promo_code,
    rail: o.rail,
    payAmount: o.pay_amount,
    payCurrency: o.pay_currency,
    transactionId: o.payin_id,
    isSandbox: o.is_sandbox,
    paidAt: iso(o.paid_at),
    createdAt: iso(o.created_at)!,
    updatedAt: iso(o.updated_at)!,
  };
}
