// Creating paylinks (both body shapes of the specification), under the operator's plan limit.
import * as db from "../../db/paylinks.ts";
import { PG_UNIQUE_VIOLATION, pgErrorCode } from "../../db/mod.ts";
import type { Caller } from "../auth.ts";
import type { Deps } from "../deps.ts";
import { AppError, type FieldProblem } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Currency } from "../money.ts";
import { acceptedRails, checkPrices, fromMinor, generateSlug, normalizeSlug, refuse } from "./input.ts";
import type { Owner } from "./queries.ts";
import type { PaylinkWithChildren } from "./view.ts";

export type ProductInput = {
  name: string;
  description?: string;
  price: string;
  productType?: "PHYSICAL" | "DIGITAL";
  digitalUrl?: string | null;
  stockEnabled?: boolean;
  stockQty?: number;
  lowStockThreshold?: number;
  sortOrder?: number;
};

export type Collect = "HIDDEN" | "OPTIONAL" | "REQUIRED";

/** Settings a paylink is created with (and, most of them, updated with). */
export type PaylinkSettings = {
  name?: string | null;
  title?: string | null;
  description?: string | null;
  slug?: string;
  type?: "FIXED" | "VARIABLE" | "RECURRING";
  currency?: Currency;
  category?: string | null;
  acceptedMethods?: string[];
  maxUses?: number | null;
  expiresAt?: string | null;
  autoDisableOnDepletion?: boolean;
  collectEmail?: Collect;
  collectName?: Collect;
  collectPhone?: Collect;
  collectAddress?: Collect;
  recurringInterval?: "WEEKLY" | "MONTHLY" | "YEARLY" | null;
  recurringIntervalCount?: number | null;
  brandColor?: string | null;
  logoUrl?: string | null;
  postPaymentAction?: string | null;
  successUrl?: string | null;
  cancelUrl?: string | null;
  feeBearer?: "MERCHANT" | "CLIENT";
};

export type ProductShapeInput = PaylinkSettings & { products: ProductInput[] };

/** The alternative body shape: one amount, for a merchant with a completed business profile. */
export type AltShapeInput = {
  slug: string;
  title: string;
  amountMinor: number;
  currency: Currency;
  acceptedMethods: string[];
  category?: string;
};

export type CreatePaylinkInput = ProductShapeInput | AltShapeInput;

/** Paylinks per merchant and mode when the operator set no plan limit. */
export const DEFAULT_PAYLINK_LIMIT = 1000;

export function isAltShape(input: CreatePaylinkInput): input is AltShapeInput {
  return "amountMinor" in input;
}

/** The alternative shape as the product shape: one product named after the title. */
function fromAltShape(input: AltShapeInput): ProductShapeInput {
  return {
    slug: input.slug,
    title: input.title,
    currency: input.currency,
    acceptedMethods: input.acceptedMethods,
    category: input.category ?? null,
    products: [{ name: input.title, price: fromMinor(input.amountMinor, input.currency) }],
  };
}

export function productRows(products: ProductInput[], now: Date): db.NewProduct[] {
  return products.map((p, i) => ({
    id: newId("prd", now.getTime()),
    name: p.name,
    description: p.description ?? "",
    price: p.price,
    productType: p.productType ?? "PHYSICAL",
    digitalUrl: p.digitalUrl ?? null,
    // Giving a stock quantity turns stock tracking on unless said otherwise.
    stockEnabled: p.stockEnabled ?? p.stockQty !== undefined,
    stockQty: p.stockQty ?? 0,
    lowStockThreshold: p.lowStockThreshold ?? 0,
    sortOrder: p.sortOrder ?? i,
  }));
}

export function checkProducts(products: ProductInput[], currency: Currency, fieldPrefix = "products"): void {
  if (products.length === 0) throw new AppError("PAYLINK_EMPTY", "A paylink needs at least one product");
  checkPrices(products.map((p, i) => ({ field: `${fieldPrefix}.${i}.price`, value: p.price })), currency);
  const digitalWithoutUrl = products.findIndex((p) => p.productType !== "DIGITAL" && p.digitalUrl);
  if (digitalWithoutUrl >= 0) {
    refuse([{
      field: `${fieldPrefix}.${digitalWithoutUrl}.digitalUrl`,
      reason: "only DIGITAL products have one",
    }]);
  }
}

/** Why a paylink of `type` cannot have this recurringInterval (required on RECURRING, else none). */
export function recurringProblem(
  type: string,
  interval: string | null | undefined,
): FieldProblem | undefined {
  if (type === "RECURRING" && !interval) {
    return { field: "recurringInterval", reason: "required for a RECURRING paylink" };
  }
  if (type !== "RECURRING" && interval) {
    return { field: "recurringInterval", reason: "only a RECURRING paylink has one" };
  }
  return undefined;
}

/** A new paylink's settings: the recurring interval its type needs (the schema says it too), expiry ahead. */
export function checkSettings(s: PaylinkSettings, now: Date, type: string): void {
  const recurring = recurringProblem(type, s.recurringInterval);
  if (recurring) refuse([recurring]);
  checkExpiry(s, now);
}

/** expiresAt, when given, is in the future. */
export function checkExpiry(s: Pick<PaylinkSettings, "expiresAt">, now: Date): void {
  if (s.expiresAt && new Date(s.expiresAt).getTime() <= now.getTime()) {
    refuse([{ field: "expiresAt", reason: "must be in the future" }]);
  }
}

/** Settings as paylink columns (only those given). */
export function settingsColumns(s: PaylinkSettings): db.PaylinkFields {
  const cols: db.PaylinkFields = {
    name: s.name,
    title: s.title,
    description: s.description,
    type: s.type,
    currency: s.currency,
    category: s.category,
    max_uses: s.maxUses,
    expires_at: s.expiresAt === undefined ? undefined : s.expiresAt === null ? null : new Date(s.expiresAt),
    auto_disable_on_depletion: s.autoDisableOnDepletion,
    collect_email: s.collectEmail,
    collect_name: s.collectName,
    collect_phone: s.collectPhone,
    collect_address: s.collectAddress,
    recurring_interval: s.recurringInterval,
    recurring_interval_count: s.recurringIntervalCount,
    brand_color: s.brandColor,
    logo_url: s.logoUrl,
    post_payment_action: s.postPaymentAction,
    success_url: s.successUrl,
    cancel_url: s.cancelUrl,
    fee_bearer: s.feeBearer,
  };
  return cols;
}

export function isUniqueViolation(err: unknown): boolean {
  return pgErrorCode(err) === PG_UNIQUE_VIOLATION;
}

/**
 * Creates a paylink in the caller's mode (`isSandbox`, already checked against the sandbox flag). The
 * plan limit is counted under a per-merchant lock, so 50 concurrent creations cannot pass it together.
 */
export async function createPaylink(
  deps: Pick<Deps, "db" | "clock">,
  caller: Pick<Caller, "merchantId" | "enabledRails" | "kybStatus">,
  isSandbox: boolean,
  input: CreatePaylinkInput,
): Promise<PaylinkWithChildren> {
  if (isAltShape(input) && caller.kybStatus !== "APPROVED") {
    throw new AppError("KYB_REQUIRED", "The slug/title/amountMinor shape needs a completed business profile");
  }
  const body = isAltShape(input) ? fromAltShape(input) : input;
  const now = deps.clock.now();
  const currency = body.currency ?? "USDT_TRC20";
  const type = body.type ?? "FIXED";
  checkProducts(body.products, currency);
  checkSettings(body, now, type);
  const methods = acceptedRails(body.acceptedMethods, caller.enabledRails);
  const slug = body.slug !== undefined ? normalizeSlug(body.slug) : generateSlug(body.title ?? body.name);
  const owner: Owner = { merchantId: caller.merchantId, isSandbox };
  try {
    return await deps.db.tx(async (tx) => {
      await db.lockMerchantPaylinks(tx, owner.merchantId);
      const limit = (await db.findPlanLimit(tx, owner.merchantId)) ?? DEFAULT_PAYLINK_LIMIT;
      if (await db.countPaylinksOf(tx, owner) >= limit) {
        throw new AppError("LIMIT_EXCEEDED_PAYLINKS", `The plan allows ${limit} paylinks`);
      }
      if (await db.slugTaken(tx, slug)) throw slugTakenError();
      const paylink = await db.insertPaylink(tx, {
        id: newId("plk", now.getTime()),
        merchantId: owner.merchantId,
        isSandbox,
        now,
        ...settingsColumns(body),
        slug,
        type,
        currency,
        accepted_methods: methods,
      });
      const products = await db.insertProducts(
        tx,
        {
          id: paylink.id,
          merchantId: owner.merchantId,
          isSandbox,
        },
        productRows(body.products, now),
        now,
      );
      products.sort((a, b) => a.sort_order - b.sort_order || (a.id < b.id ? -1 : 1));
      return { paylink, products, promos: [] };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTakenError();
    throw err;
  }
}

function slugTakenError() {
  return new AppError("DUPLICATE_RESOURCE", "This slug is already used by another paylink", {
    details: [{ field: "slug", reason: "already taken" }],
  });
}

/** The operator's plan limit (admin route). */
export async function setPaylinkLimit(
  deps: Pick<Deps, "db" | "clock">,
  merchantId: string,
  maxPaylinks: number,
) {
  await db.upsertPlanLimit(deps.db, merchantId, maxPaylinks, deps.clock.now());
  return { merchantId, maxPaylinks };
}

export async function getPaylinkLimit(deps: Pick<Deps, "db">, merchantId: string) {
  return { merchantId, maxPaylinks: (await db.findPlanLimit(deps.db, merchantId)) ?? DEFAULT_PAYLINK_LIMIT };
}
