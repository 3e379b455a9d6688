// zod schemas of the paylink routes: request bodies (both creation shapes) and answers.
import { z } from "@hono/zod-openapi";
import { PAYLINK_STATUSES } from "../../domain/paylinks/states.ts";
import { currency, settings } from "./request_schemas.ts";

export {
  AltShapeSchema,
  CreatePaylinkSchema,
  ProductInputSchema,
  ProductPatchSchema,
  ProductShapeSchema,
  PromoInputSchema,
  PromoPatchSchema,
  SimulateSchema,
} from "./request_schemas.ts";

const collect = z.enum(["HIDDEN", "OPTIONAL", "REQUIRED"]);

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

export const TemplateSchema = z.object({
  id: z.string(),
  name: z.string(),
  config: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
}).openapi("PaylinkTemplate");

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
