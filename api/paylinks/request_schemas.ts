// Request bodies of paylinks whose rules depend on a field beside them: a price is in the paylink's
// currency (XOF: whole francs; USDT: at most 6 decimals), and only a DIGITAL product has a delivery link.
// One schema per case, told apart by that field (`currency`, `productType`), so the document says what
// zod checks. What depends on stored state (an added product's price in an existing paylink's currency)
// stays the domain's, answered with a state code.
import { z } from "@hono/zod-openapi";
import type { Currency } from "../../domain/money.ts";
import { recurringProblem } from "../../domain/paylinks/create.ts";
import { METHOD_NAMES, PRICE_PATTERNS, SLUG_INPUT_PATTERN, SLUG_RULE } from "../../domain/paylinks/input.ts";
import { PERCENT_PATTERN, PROMO_CODE_INPUT_PATTERN } from "../../domain/paylinks/promo_rules.ts";
import { HttpUrl } from "../envelope.ts";
import { ABSENT } from "../shape_schemas.ts";

const text = (max: number) => z.string().trim().max(max);
const collect = z.enum(["HIDDEN", "OPTIONAL", "REQUIRED"]);
export const currency = z.enum(["USDT_TRC20", "XOF"]);
const count = (max: number) => z.number().int().min(0).max(max);
export const timestamp = z.string().datetime({ offset: true }).openapi({
  example: "2026-12-31T23:59:59.000Z",
});

/** A price in `currency`: above 0, at most 1,000,000,000,000, in the currency's decimals. */
export function priceIn(currency: Currency, description: string) {
  const rule = currency === "XOF"
    ? "XOF prices are whole numbers from 1 to 1000000000000"
    : "a decimal string above 0, at most 1000000000000 and 6 decimals, such as 12.50";
  return z.string().max(40).regex(new RegExp(PRICE_PATTERNS[currency]), rule).openapi({
    example: currency === "XOF" ? "5000" : "12.50",
    description,
  });
}

const PRODUCT_NAMES: Record<Currency, { union: string; physical: string; digital: string }> = {
  USDT_TRC20: {
    union: "PaylinkProductInput",
    physical: "PaylinkPhysicalProductInput",
    digital: "PaylinkDigitalProductInput",
  },
  XOF: {
    union: "PaylinkXofProductInput",
    physical: "PaylinkXofPhysicalProductInput",
    digital: "PaylinkXofDigitalProductInput",
  },
};

/**
 * A product priced in `currency` (USDT_TRC20's form also stands for "the paylink's currency" where the
 * paylink exists already): PHYSICAL, the default, or DIGITAL with the link delivered after payment.
 */
function productInput(currency: Currency, priceDescription: string) {
  const names = PRODUCT_NAMES[currency];
  const fields = {
    name: text(200).min(1),
    description: text(2000).optional(),
    price: priceIn(currency, priceDescription),
    stockEnabled: z.boolean().optional().openapi({ description: "default: true when stockQty is given" }),
    stockQty: count(1_000_000_000).optional(),
    lowStockThreshold: count(1_000_000_000).optional(),
    sortOrder: count(100_000).optional(),
  };
  const physical = z.strictObject({
    ...fields,
    productType: z.literal("PHYSICAL").optional().openapi({ description: "absent: PHYSICAL" }),
  }).openapi(names.physical);
  const digital = z.strictObject({
    ...fields,
    productType: z.literal("DIGITAL"),
    digitalUrl: HttpUrl.optional().openapi({ description: "shown to the customer only after payment" }),
  }).openapi(names.digital);
  return z.discriminatedUnion("productType", [physical, digital]).openapi(names.union, {
    description: "A PHYSICAL product (the default) or a DIGITAL one, which alone has a digitalUrl",
  });
}

/** POST /v1/paylinks/{id}/products: the price in the paylink's currency (an XOF paylink's is whole). */
export const ProductInputSchema = productInput(
  "USDT_TRC20",
  "Decimal string in the paylink's currency: USDT at most 6 decimals; an XOF paylink's price is whole " +
    "(else CONFLICT: the paylink's currency is stored, not in this body)",
);
const XofProductInputSchema = productInput("XOF", "Whole XOF francs, such as 5000");

export const settings = {
  name: text(200).nullable().optional().openapi({ description: "internal, never shown to the customer" }),
  title: text(200).nullable().optional().openapi({ description: "shown to the customer" }),
  description: text(2000).nullable().optional(),
  currency: currency.optional().openapi({ description: "display currency, default USDT_TRC20" }),
  category: text(64).nullable().optional(),
  acceptedMethods: z.array(z.enum(METHOD_NAMES)).max(6).optional().openapi({
    description: "rails offered (default: all the merchant's enabled ones); CRYPTO means USDT_TRC20",
  }),
  maxUses: z.number().int().min(1).max(1_000_000_000).nullable().optional(),
  expiresAt: timestamp.nullable().optional(),
  autoDisableOnDepletion: z.boolean().optional(),
  collectEmail: collect.optional(),
  collectName: collect.optional(),
  collectPhone: collect.optional(),
  collectAddress: collect.optional(),
  recurringInterval: z.enum(["WEEKLY", "MONTHLY", "YEARLY"]).nullable().optional(),
  recurringIntervalCount: z.number().int().min(1).max(52).nullable().optional(),
  brandColor: z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, "a hex colour such as #0a7d4f")
    .nullable()
    .optional(),
  logoUrl: HttpUrl.nullable().optional(),
  postPaymentAction: text(500).nullable().optional().openapi({
    description: "message or instruction after payment",
  }),
  successUrl: HttpUrl.nullable().optional(),
  cancelUrl: HttpUrl.nullable().optional(),
  feeBearer: z.enum(["MERCHANT", "CLIENT"]).optional().openapi({ description: "who pays the service fee" }),
};

/** A slug as sent: trimmed and lower-cased by the server, then 3 to 64 of a-z, 0-9 and inner hyphens. */
const Slug = z.string().max(200).regex(new RegExp(SLUG_INPUT_PATTERN), SLUG_RULE);

const INTERVALS = ["WEEKLY", "MONTHLY", "YEARLY"];

/**
 * A RECURRING paylink has a recurringInterval and no other type has one (domain recurringProblem). The
 * branches exclude each other; `anyOf`, as the type may be absent (FIXED).
 */
const RECURRING_RULE = {
  anyOf: [
    {
      properties: { type: { const: "RECURRING" }, recurringInterval: { enum: INTERVALS } },
      required: ["type", "recurringInterval"],
    },
    { properties: { type: { enum: ["FIXED", "VARIABLE"] }, recurringInterval: { type: "null" } } },
  ],
} as never;

function productShape(shapeCurrency: Currency, name: string) {
  return z.strictObject({
    ...settings,
    currency: shapeCurrency === "XOF"
      ? z.literal("XOF").openapi({ description: "prices in whole XOF francs" })
      : z.literal("USDT_TRC20").optional().openapi({ description: "display currency; absent: USDT_TRC20" }),
    slug: Slug.optional().openapi({ description: "generated when absent; a-z, 0-9 and hyphens" }),
    type: z.enum(["FIXED", "VARIABLE", "RECURRING"]).optional().openapi({
      description: "default FIXED; RECURRING needs a recurringInterval, which no other type has",
    }),
    // An empty list answers PAYLINK_EMPTY (the domain's), so zod lets it through to it.
    products: z.array(shapeCurrency === "XOF" ? XofProductInputSchema : ProductInputSchema).max(200)
      .openapi({ minItems: 1 }),
  }).superRefine((body, ctx) => {
    const problem = recurringProblem(body.type ?? "FIXED", body.recurringInterval);
    if (problem) ctx.addIssue({ code: "custom", path: [problem.field], message: problem.reason });
  }).openapi(name, RECURRING_RULE);
}

/** The products shape, one schema per display currency (absent: USDT_TRC20). */
export const ProductShapeSchema = z.discriminatedUnion("currency", [
  productShape("USDT_TRC20", "CreatePaylink"),
  productShape("XOF", "CreatePaylinkXof"),
]).openapi("CreatePaylinkWithProducts", {
  description: "Products priced in the paylink's currency, told apart by `currency` (absent: USDT_TRC20)",
});

export const AltShapeSchema = z.strictObject({
  slug: Slug,
  title: text(200).min(1),
  amountMinor: z.number().int().min(1).max(100_000_000_000_000).openapi({
    description: "amount in minor units: USDT cents, XOF units",
  }),
  currency,
  acceptedMethods: z.array(z.enum(METHOD_NAMES)).min(1).max(6),
  category: text(64).optional(),
}).openapi("CreatePaylinkSimple");

export const CreatePaylinkSchema = z.union([ProductShapeSchema, AltShapeSchema]);

const simulateFields = {
  methods: z.array(z.enum(METHOD_NAMES)).max(6).optional(),
  feeBearer: z.enum(["MERCHANT", "CLIENT"]).optional(),
};

/** POST /v1/paylinks/simulate: the amount in the currency named beside it (absent: USDT_TRC20). */
export const SimulateSchema = z.discriminatedUnion("currency", [
  z.strictObject({
    amount: priceIn("USDT_TRC20", "USDT, at most 6 decimals"),
    currency: z.literal("USDT_TRC20").optional().openapi({ description: "absent: USDT_TRC20" }),
    ...simulateFields,
  }).openapi("SimulatePaylinkUsdt"),
  z.strictObject({
    amount: priceIn("XOF", "whole XOF francs"),
    currency: z.literal("XOF"),
    ...simulateFields,
  }).openapi("SimulatePaylinkXof"),
]).openapi("SimulatePaylink", { description: "The amount in `currency` (absent: USDT_TRC20)" });

/** PATCH of a product: any of its fields; the price in the paylink's currency, a link only on DIGITAL. */
export const ProductPatchSchema = z.strictObject({
  name: text(200).min(1).optional(),
  description: text(2000).optional(),
  price: priceIn(
    "USDT_TRC20",
    "in the paylink's currency: USDT at most 6 decimals, XOF whole (else CONFLICT)",
  )
    .optional(),
  productType: z.enum(["PHYSICAL", "DIGITAL"]).optional(),
  digitalUrl: HttpUrl.nullable().optional().openapi({
    description: "DIGITAL only (a product stored PHYSICAL: CONFLICT); null removes it",
  }),
  stockEnabled: z.boolean().optional(),
  stockQty: count(1_000_000_000).optional(),
  lowStockThreshold: count(1_000_000_000).optional(),
  sortOrder: count(100_000).optional(),
}).superRefine((patch, ctx) => {
  if (patch.productType === "PHYSICAL" && patch.digitalUrl) {
    ctx.addIssue({ code: "custom", path: ["digitalUrl"], message: "only DIGITAL products have one" });
  }
}).openapi("PaylinkProductPatch", {
  oneOf: [
    {
      properties: { productType: { const: "PHYSICAL" }, digitalUrl: { type: "null" } },
      required: ["productType"],
    },
    { properties: { productType: { const: "DIGITAL" } }, required: ["productType"] },
    { properties: { productType: ABSENT } },
  ],
} as never);

const percent = z.string().max(40).regex(new RegExp(PERCENT_PATTERN), "a percentage above 0 and at most 100")
  .openapi({ example: "10", description: "a percentage above 0 and at most 100, at most 4 decimals" });
const fixed = priceIn(
  "USDT_TRC20",
  "an amount off, in the paylink's currency: USDT at most 6 decimals, XOF whole (else CONFLICT)",
).openapi({ example: "500" });
const promoFields = {
  maxUses: z.number().int().min(1).max(1_000_000_000).optional(),
  expiresAt: timestamp.optional(),
};
const promoCode = z.string().max(40).regex(
  new RegExp(PROMO_CODE_INPUT_PATTERN),
  "1 to 40 characters: letters, digits, - and _",
).openapi({ example: "WELCOME10", description: "stored upper-case" });

/** A promo code: a percentage off, or an amount off in the paylink's currency. */
export const PromoInputSchema = z.discriminatedUnion("discountType", [
  z.strictObject({
    code: promoCode,
    discountType: z.literal("PERCENT"),
    discountValue: percent,
    ...promoFields,
  })
    .openapi("CreatePercentPromoCode"),
  z.strictObject({ code: promoCode, discountType: z.literal("FIXED"), discountValue: fixed, ...promoFields })
    .openapi("CreateFixedPromoCode"),
]).openapi("CreatePromoCode");

/**
 * PATCH of a promo code. A discountValue sent with its discountType is checked against it (the schema
 * says how); sent alone, against the stored type (CONFLICT when it does not fit).
 */
export const PromoPatchSchema = z.strictObject({
  discountType: z.enum(["PERCENT", "FIXED"]).optional(),
  discountValue: z.string().max(40).optional().openapi({
    description: "for PERCENT a percentage above 0 and at most 100; for FIXED an amount in the paylink's " +
      "currency; without discountType, for the stored type (CONFLICT when it does not fit)",
  }),
  maxUses: z.number().int().min(1).max(1_000_000_000).nullable().optional().openapi({
    description: "at least the uses already taken (else CONFLICT)",
  }),
  expiresAt: timestamp.nullable().optional(),
  isActive: z.boolean().optional(),
}).superRefine((patch, ctx) => {
  const value = patch.discountValue;
  if (value === undefined) return;
  const fits = (type: "PERCENT" | "FIXED") => (type === "PERCENT" ? percent : fixed).safeParse(value).success;
  if (patch.discountType ? !fits(patch.discountType) : !fits("PERCENT") && !fits("FIXED")) {
    const what = patch.discountType ? `a ${patch.discountType} discount` : "a discount of either type";
    ctx.addIssue({ code: "custom", path: ["discountValue"], message: `not ${what}` });
  }
}).openapi("UpdatePromoCode", {
  anyOf: [
    {
      properties: { discountType: { const: "PERCENT" }, discountValue: { pattern: PERCENT_PATTERN } },
      required: ["discountType"],
    },
    {
      properties: { discountType: { const: "FIXED" }, discountValue: { pattern: PRICE_PATTERNS.USDT_TRC20 } },
      required: ["discountType"],
    },
    {
      properties: {
        discountType: ABSENT,
        discountValue: { anyOf: [{ pattern: PERCENT_PATTERN }, { pattern: PRICE_PATTERNS.USDT_TRC20 }] },
      },
    },
  ],
} as never);
