// What the hosted paylink page and the public promo preview read: a paylink by its slug as a customer
// may see it (no `digitalUrl`, no promo code list, no other customer's data), the merchant who is paid,
// the rails on offer with the live price in each rail's currency, and the discount a code would give.
import * as merchantsDb from "../../db/merchants.ts";
import * as shopDb from "../../db/shop.ts";
import * as paylinksDb from "../../db/paylinks.ts";
import type { PaylinkRow, ProductRow } from "../../db/paylinks.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { currentRate, FX_DECIMALS } from "../fx/rates.ts";
import { brandingOf, type MerchantBranding } from "../merchants/branding.ts";
import { assertMerchantTakesPayments, takesPayments } from "../merchants/availability.ts";
import { type PaymentRail, RAILS } from "../merchants/mod.ts";
import { type Currency, Decimal } from "../money.ts";
import { noSuchProduct } from "../paylinks/checkout.ts";
import { assertPromoUsable, discountOf, normalizeCode, PROMO_CODE_PATTERN } from "../paylinks/promo_rules.ts";
import { findPaylinkBySlug } from "../paylinks/queries.ts";
import { effectiveStatus, type PaylinkStatus } from "../paylinks/states.ts";
import { imageUrlOf, paymentUrlOf } from "../paylinks/view.ts";

/** The currency a rail's money arrives in. */
export const RAIL_CURRENCY: Record<PaymentRail, Currency> = {
  USDT_TRC20: "USDT_TRC20",
  CARD: "XOF",
  MOBILE_MONEY: "XOF",
};

export type ShopProduct = {
  id: string;
  name: string;
  description: string;
  /** Price in the paylink's currency, plain decimal ("2500", "12.5"). */
  price: string;
  productType: "PHYSICAL" | "DIGITAL";
  imageUrl: string | null;
  /** null: not tracked (always available). */
  available: number | null;
  lowStock: boolean;
};

export type ShopRail = {
  rail: PaymentRail;
  currency: Currency;
  rate: string | null;
  rateAsOf: string | null;
};

export type ShopView = {
  slug: string;
  title: string;
  description: string | null;
  status: PaylinkStatus;
  type: PaylinkRow["type"];
  currency: Currency;
  isSandbox: boolean;
  paymentUrl: string;
  brandColor: string | null;
  coverImageUrl: string | null;
  /** The paylink's own logo when it is ours to serve, else the merchant's. */
  merchant: MerchantBranding;
  products: ShopProduct[];
  rails: ShopRail[];
  collect: { email: string; name: string; phone: string; address: string };
  needsEmail: boolean;
  hasPromoCodes: boolean;
  /** False while the merchant is suspended or closed: the page says so and offers nothing to pay. */
  merchantAvailable: boolean;
  /** Why not, for the page's HTTP status: SUSPENDED (403, may come back) or CLOSED (410). */
  merchantStatus: string;
};

/** Only a `#rrggbb` colour goes into the page's stylesheet. */
function safeColor(value: string | null): string | null {
  return value && /^#(?:[0-9a-fA-F]{3}){1,2}$/.test(value) ? value.toLowerCase() : null;
}

/** A paylink logo is shown only when it is a data URL or one of our own images: no outside asset. */
function ownImage(deps: Pick<Deps, "config">, url: string | null): string | null {
  if (!url) return null;
  if (/^data:image\/(png|jpeg|webp);base64,[A-Za-z0-9+/=]+$/.test(url)) return url;
  return url.startsWith(`${deps.config.publicUrl}/v1/images/`) ? url : null;
}

export function offeredRails(paylink: PaylinkRow, merchantRails: readonly string[]): PaymentRail[] {
  return RAILS.filter((r) => paylink.accepted_methods.includes(r) && merchantRails.includes(r));
}

function shopProduct(deps: Pick<Deps, "config">, p: ProductRow): ShopProduct {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    price: new Decimal(p.price).toFixed(),
    productType: p.product_type,
    imageUrl: imageUrlOf(deps.config, p.image_key),
    available: p.stock_enabled ? p.stock_qty : null,
    lowStock: p.stock_enabled && p.stock_qty > 0 && p.stock_qty <= p.low_stock_threshold,
  };
}

/** The paylink, its merchant and the rails it may be paid on; NOT_FOUND for an unknown slug. */
export async function loadShop(deps: Pick<Deps, "db">, slug: string) {
  const found = await findPaylinkBySlug(deps, slug);
  if (!found) throw new AppError("NOT_FOUND", "No such paylink");
  const merchant = await merchantsDb.findMerchant(deps.db, found.paylink.merchant_id);
  if (!merchant) throw new AppError("NOT_FOUND", "No such paylink");
  return { ...found, merchant };
}

/**
 * The page's view. `countView` records one view for the stats. Rates that cannot be had right now (no
 * feed, a stale feed) leave that rail's `rate` null: the page shows the rail without a price.
 */
export async function getShopView(
  deps: Pick<Deps, "db" | "config" | "clock" | "rates">,
  slug: string,
  options: { countView?: boolean } = {},
): Promise<ShopView> {
  const { paylink, products, promos, merchant } = await loadShop(deps, slug);
  const now = deps.clock.now();
  const available = takesPayments(merchant);
  // A merchant that takes no payments gets no views counted and no rails offered.
  if (options.countView && available) await shopDb.countView(deps.db, paylink.id, now);
  const rails: ShopRail[] = [];
  for (const rail of available ? offeredRails(paylink, merchant.enabled_rails) : []) {
    const currency = RAIL_CURRENCY[rail];
    try {
      const rate = await currentRate(deps, paylink.currency, currency);
      rails.push({ rail, currency, rate: rate.rate, rateAsOf: rate.asOf.toISOString() });
    } catch {
      rails.push({ rail, currency, rate: null, rateAsOf: null });
    }
  }
  const branding = brandingOf(merchant);
  const onSale = products.filter((p) => !p.archived_at);
  return {
    slug: paylink.slug,
    title: paylink.title ?? onSale[0]?.name ?? branding.displayName,
    description: paylink.description,
    status: effectiveStatus(paylink, now),
    type: paylink.type,
    currency: paylink.currency,
    isSandbox: paylink.is_sandbox,
    paymentUrl: paymentUrlOf(deps.config, paylink.slug),
    brandColor: safeColor(paylink.brand_color),
    coverImageUrl: imageUrlOf(deps.config, paylink.cover_image_key),
    merchant: {
      displayName: branding.displayName,
      logoUrl: ownImage(deps, paylink.logo_url) ?? branding.logoUrl,
    },
    products: onSale.map((p) => shopProduct(deps, p)),
    rails,
    collect: {
      email: paylink.collect_email,
      name: paylink.collect_name,
      phone: paylink.collect_phone,
      address: paylink.collect_address,
    },
    needsEmail: paylink.type === "RECURRING" || onSale.some((p) => p.product_type === "DIGITAL"),
    hasPromoCodes: promos.length > 0,
    merchantAvailable: available,
    merchantStatus: merchant.status,
  };
}

export type PromoPreview = {
  code: string;
  discountType: "PERCENT" | "FIXED";
  discountValue: string;
  currency: Currency;
  /** With items: the order's subtotal, the discount and what is left to pay, in the paylink's currency. */
  subtotal: string | null;
  discount: string | null;
  total: string | null;
};

/**
 * The discount a code would give, checked exactly as the checkout will check it (the four errors), but
 * counting nothing. With items, the discount on that cart (a code that would leave nothing to pay is
 * refused like at checkout).
 */
export async function previewPromo(
  deps: Pick<Deps, "db" | "clock">,
  slug: string,
  input: { code: string; items?: Array<{ productId: string; quantity: number }> },
): Promise<PromoPreview> {
  const { paylink, products, merchant } = await loadShop(deps, slug);
  await assertMerchantTakesPayments(deps, merchant);
  const code = normalizeCode(input.code);
  const promo = PROMO_CODE_PATTERN.test(code)
    ? await paylinksDb.findPromoByCode(deps.db, paylink.id, code)
    : undefined;
  assertPromoUsable(promo, deps.clock.now());
  const currency = paylink.currency as Currency;
  let subtotal: Decimal | null = null;
  if (input.items && input.items.length > 0) {
    subtotal = new Decimal(0);
    for (const [i, item] of input.items.entries()) {
      const product = products.find((p) => p.id === item.productId && !p.archived_at);
      if (!product) throw noSuchProduct(i, item.productId);
      subtotal = subtotal.plus(new Decimal(product.price).times(item.quantity));
    }
  }
  const discount = subtotal ? discountOf(promo, subtotal, currency) : null;
  const fmt = (d: Decimal | null) => d ? d.toFixed(FX_DECIMALS[currency]) : null;
  return {
    code: promo.code,
    discountType: promo.discount_type,
    discountValue: new Decimal(promo.discount_value).toFixed(),
    currency,
    subtotal: fmt(subtotal),
    discount: fmt(discount),
    total: subtotal && discount ? fmt(subtotal.minus(discount)) : null,
  };
}
