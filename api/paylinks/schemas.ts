// zod schemas of the paylink routes: request bodies (both creation shapes) and answers.
import { z } from "@hono/zod-openapi";
import { HttpUrl } from "../envelope.ts";
import { METHOD_NAMES } from "../../domain/paylinks/input.ts";
import { PAYLINK_STATUSES } from "../../domain/paylinks/states.ts";
import { DecimalAmount } from "../shape_schemas.ts";

const text = (max: number) => z.string().trim().max(max);
const collect = z.enum(["HIDDEN", "OPTIONAL", "REQUIRED"]);
const currency = z.enum(["USDT_TRC20", "XOF"]);
const count = (max: number) => z.number().int().min(0).max(max);
const timestamp = z.string().datetime({ offset: true }).openapi({ example: "2026-12-31T23:59:59.000Z" });
const Price = DecimalAmount.openapi({
  example: "12.50",
  description: "Decimal string in the paylink's currency (USDT: at most 6 decimals; XOF: whole)",
});

export const ProductInputSchema = z.strictObject({
  name: text(200).min(1),
  description: text(2000).optional(),
  price: Price,
  productType: z.enum(["PHYSICAL", "DIGITAL"]).optional().openapi({ description: "default PHYSICAL" }),
  digitalUrl: HttpUrl.optional().openapi({
    description: "DIGITAL only; shown to the customer only after payment",
  }),
  stockEnabled: z.boolean().optional().openapi({ description: "default: true when stockQty is given" }),
  stockQty: count(1_000_000_000).optional(),
  lowStockThreshold: count(1_000_000_000).optional(),
  sortOrder: count(100_000).optional(),
}).openapi("PaylinkProductInput");

export const ProductPatchSchema = ProductInputSchema.partial().extend({
  digitalUrl: HttpUrl.nullable().optional(),
}).openapi("PaylinkProductPatch");

const settings = {
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

export const ProductShapeSchema = z.strictObject({
  ...settings,
  slug: z.string().max(200).optional().openapi({
    description: "generated when absent; a-z, 0-9 and hyphens",
  }),
  type: z.enum(["FIXED", "VARIABLE", "RECURRING"]).optional().openapi({ description: "default FIXED" }),
  products: z.array(ProductInputSchema).max(200),
}).openapi("CreatePaylink");

export const AltShapeSchema = z.strictObject({
  slug: z.string().max(200),
  title: text(200).min(1),
  amountMinor: z.number().int().min(1).max(100_000_000_000_000).openapi({
    description: "amount in minor units: USDT cents, XOF units",
  }),
  currency,
  acceptedMethods: z.array(z.enum(METHOD_NAMES)).min(1).max(6),
  category: text(64).optional(),
}).openapi("CreatePaylinkSimple");

export const CreatePaylinkSchema = z.union([ProductShapeSchema, AltShapeSchema]);

export const PaylinkPatchSchema = z.strictObject({
  ...settings,
  status: z.enum(["ACTIVE", "INACTIVE"]).optional(),
}).openapi("UpdatePaylink");

export const ProductSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  price: z.string().openapi({ description: "18 fractional digits" }),
  productType: z.enum(["PHYSICAL", "DIGITAL"]),
  digitalUrl: z.string().nullable(),
  imageKey: z.string().nullable(),
  imageUrl: z.string().nullable(),
  stockEnabled: z.boolean(),
  stockQty: z.number().int(),
  lowStockThreshold: z.number().int(),
  isLowStock: z.boolean(),
  sortOrder: z.number().int(),
}).openapi("PaylinkProduct");

export const PromoSchema = z.object({
  id: z.string(),
  code: z.string(),
  discountType: z.enum(["PERCENT", "FIXED"]),
  discountValue: z.string(),
  maxUses: z.number().int().nullable(),
  useCount: z.number().int(),
  expiresAt: z.string().nullable(),
  isActive: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("PromoCode");

export const PaylinkSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string().nullable(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  type: z.enum(["FIXED", "VARIABLE", "RECURRING"]),
  status: z.enum(PAYLINK_STATUSES),
  currency,
  acceptedMethods: z.array(z.string()),
  category: z.string().nullable(),
  paymentUrl: z.string(),
  products: z.array(ProductSchema),
  promoCodes: z.array(PromoSchema),
  useCount: z.number().int(),
  maxUses: z.number().int().nullable(),
  ordersCount: z.number().int(),
  expiresAt: z.string().nullable(),
  autoDisableOnDepletion: z.boolean(),
  collectEmail: collect,
  collectName: collect,
  collectPhone: collect,
  collectAddress: collect,
  recurringInterval: z.string().nullable(),
  recurringIntervalCount: z.number().int().nullable(),
  brandColor: z.string().nullable(),
  logoUrl: z.string().nullable(),
  coverImageKey: z.string().nullable(),
  coverImageUrl: z.string().nullable(),
  postPaymentAction: z.string().nullable(),
  successUrl: z.string().nullable(),
  cancelUrl: z.string().nullable(),
  feeBearer: z.enum(["MERCHANT", "CLIENT"]),
  isSandbox: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("Paylink");

/** What a publishable key reads of a product (strict, so a merchant's answer never passes for it). */
export const PublicProductSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  price: z.string().openapi({ description: "18 fractional digits" }),
  productType: z.enum(["PHYSICAL", "DIGITAL"]),
  imageKey: z.string().nullable(),
  imageUrl: z.string().nullable(),
  stockEnabled: z.boolean(),
  isLowStock: z.boolean(),
  soldOut: z.boolean(),
  sortOrder: z.number().int(),
}).openapi("PublicPaylinkProduct");

/**
 * What a publishable key (a customer's browser) reads of a paylink: no promo codes, counts, internal name
 * or what is delivered after payment.
 */
export const PublicPaylinkSchema = z.strictObject({
  id: z.string(),
  slug: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  type: z.enum(["FIXED", "VARIABLE", "RECURRING"]),
  status: z.enum(PAYLINK_STATUSES),
  currency,
  acceptedMethods: z.array(z.string()),
  category: z.string().nullable(),
  paymentUrl: z.string(),
  products: z.array(PublicProductSchema),
  expiresAt: z.string().nullable(),
  collectEmail: collect,
  collectName: collect,
  collectPhone: collect,
  collectAddress: collect,
  recurringInterval: z.string().nullable(),
  recurringIntervalCount: z.number().int().nullable(),
  brandColor: z.string().nullable(),
  logoUrl: z.string().nullable(),
  coverImageKey: z.string().nullable(),
  coverImageUrl: z.string().nullable(),
  cancelUrl: z.string().nullable(),
  feeBearer: z.enum(["MERCHANT", "CLIENT"]),
  isSandbox: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("PublicPaylink");

/** GET /v1/paylinks/{id}: the merchant's view, or the public one for a publishable key. */
export const PaylinkReadSchema = z.union([PaylinkSchema, PublicPaylinkSchema]).openapi({}, {
  unionPreferredType: "oneOf",
});

export const PromoInputSchema = z.strictObject({
  code: z.string().max(40).openapi({ example: "WELCOME10", description: "stored upper-case" }),
  discountType: z.enum(["PERCENT", "FIXED"]),
  discountValue: DecimalAmount.openapi({ example: "10" }),
  maxUses: z.number().int().min(1).max(1_000_000_000).optional(),
  expiresAt: timestamp.optional(),
}).openapi("CreatePromoCode");

export const PromoPatchSchema = z.strictObject({
  discountType: z.enum(["PERCENT", "FIXED"]).optional(),
  discountValue: DecimalAmount.optional(),
  maxUses: z.number().int().min(1).max(1_000_000_000).nullable().optional(),
  expiresAt: timestamp.nullable().optional(),
  isActive: z.boolean().optional(),
}).openapi("UpdatePromoCode");

export const TemplateSchema = z.object({
  id: z.string(),
  name: z.string(),
  config: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
}).openapi("PaylinkTemplate");

export const SimulateSchema = z.strictObject({
  amount: Price,
  methods: z.array(z.enum(METHOD_NAMES)).max(6).optional(),
  currency: currency.optional(),
  feeBearer: z.enum(["MERCHANT", "CLIENT"]).optional(),
}).openapi("SimulatePaylink");

export const SimulationSchema = z.object({
  amount: z.string(),
  currency,
  feeBearer: z.enum(["MERCHANT", "CLIENT"]),
  quotes: z.array(z.object({
    method: z.string(),
    currency,
    amount: z.string(),
    rate: z.string(),
    feePercent: z.string(),
    serviceFee: z.string(),
    networkFee: z.string(),
    fee: z.string(),
    customerPays: z.string(),
    merchantReceives: z.string(),
  })),
}).openapi("PaylinkSimulation");
