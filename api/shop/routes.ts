// The public paylink routes (no key): checkout, apply-promo and rate-lock. Each is rate-limited per client
// address and route (PUBLIC_RATE_LIMIT a minute); none answers anything about other customers' orders,
// and no product's `digitalUrl` appears before payment.
import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../domain/errors.ts";
import { RAILS } from "../../domain/merchants/mod.ts";
import { takeTokens } from "../../domain/limits/rate_limit.ts";
import { checkoutPaylink, createRateLock } from "../../domain/shop/checkout.ts";
import { previewPromo } from "../../domain/shop/storefront.ts";
import { MAX_LINE_QUANTITY, MAX_ORDER_LINES } from "../../domain/paylinks/checkout.ts";
import { SLUG_PATTERN } from "../../domain/paylinks/queries.ts";
import { newRouter } from "../router.ts";
import { errorResponses, jsonContent, ok, providerErrorResponses, successSchema } from "../envelope.ts";
import { EMAIL_PATTERN } from "../shape_schemas.ts";
import type { AppEnv } from "../../http/env.ts";
import { clientAddress } from "../../http/client_address.ts";

/** Counts the request against its client address's limit for this route; 429 with Retry-After beyond it. */
export function publicRateLimit(route: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const deps = c.get("deps");
    const limit = deps.config.publicRateLimit;
    const [decision] = await takeTokens(deps, [{ bucket: ["public", route, clientAddress(c)], limit }]);
    c.header("X-RateLimit-Limit", String(limit));
    c.header("X-RateLimit-Remaining", String(decision.remaining));
    if (!decision.allowed) {
      throw new AppError(
        "RATE_LIMIT_EXCEEDED",
        `Too many requests; retry in ${decision.retryAfterSeconds} s`,
        {
          headers: { "Retry-After": String(decision.retryAfterSeconds) },
        },
      );
    }
    await next();
  };
}

/** A slug as a path segment: anything that cannot be one is VALIDATION_ERROR, an unknown one NOT_FOUND. */
const SlugParam = z.object({
  slug: z.string().max(64).regex(SLUG_PATTERN, "a-z, 0-9 and hyphens, 3 to 64 characters").openapi({
    param: { name: "slug", in: "path" },
    example: "boutique-awa",
  }),
});

const ItemSchema = z.strictObject({
  productId: z.string().min(1).max(64),
  quantity: z.number().int().min(1).max(MAX_LINE_QUANTITY),
});
const RailSchema = z.enum(RAILS);
const CustomerText = (max: number) => z.string().trim().max(max);

const CheckoutBody = z.strictObject({
  items: z.array(ItemSchema).min(1).max(MAX_ORDER_LINES),
  customerEmail: z.email().max(254).optional().openapi({
    pattern: EMAIL_PATTERN,
    description: "required for RECURRING paylinks and digital products, and for card payments",
  }),
  customerName: CustomerText(200).optional().openapi({ description: "required for card payments" }),
  customerPhone: z.string().trim().regex(/^\+[1-9]\d{6,14}$/, "an E.164 number such as +22670123456")
    .optional().openapi({ description: "E.164; required for mobile money" }),
  customerAddress: CustomerText(500).optional(),
  paymentMethod: RailSchema.optional().openapi({
    description: "the rail; default the first the paylink offers",
  }),
  promoCode: z.string().trim().min(1).max(64).optional(),
  amount: z.string().max(40).regex(/^(0|[1-9]\d{0,17})(\.\d{1,6})?$/, 'a decimal string such as "5000"')
    .optional().openapi({
      description: "VARIABLE paylinks only (refused on others): what the customer chooses to pay, in the " +
        "paylink's currency (XOF: whole number; USDT: at most 6 decimals), from the cart's price " +
        "(AMOUNT_TOO_SMALL below) to 100 times it (AMOUNT_TOO_LARGE above); default the cart's price",
      example: "7500",
    }),
  rateLockId: z.string().max(64).optional().openapi({
    description: "from POST /v1/paylinks/{slug}/rate-lock",
  }),
  operatorCode: z.enum(["OPERATOR_A_BF", "OPERATOR_B_BF"]).optional(),
}).openapi("PaylinkCheckoutRequest");

const CheckoutResultSchema = z.object({
  orderId: z.string(),
  transactionId: z.string(),
  address: z.string().nullable().openapi({
    description: "TRON deposit address; null on card and mobile money",
  }),
  amount: z.string().openapi({ description: "the order's total in the rail's currency" }),
  amountExpected: z.string().openapi({ description: "what the customer sends (USDT: plus the network fee)" }),
  expiresAt: z.string(),
  paymentMethod: RailSchema,
  currency: z.enum(["USDT_TRC20", "XOF"]),
  checkoutUrl: z.string().openapi({ description: "the pay-in's hosted checkout, where the customer pays" }),
}).openapi("PaylinkCheckoutResult");

const PromoBody = z.strictObject({
  code: z.string().trim().min(1).max(64),
  items: z.array(ItemSchema).min(1).max(MAX_ORDER_LINES).optional().openapi({
    description: "the cart, to preview the discount on it",
  }),
}).openapi("ApplyPromoRequest");

const PromoPreviewSchema = z.object({
  code: z.string(),
  discountType: z.enum(["PERCENT", "FIXED"]),
  discountValue: z.string(),
  currency: z.enum(["USDT_TRC20", "XOF"]),
  subtotal: z.string().nullable(),
  discount: z.string().nullable(),
  total: z.string().nullable(),
}).openapi("PromoPreview");

const RateLockBody = z.strictObject({ paymentMethod: RailSchema }).openapi("RateLockRequest");
const RateLockSchema = z.object({
  rateLockId: z.string(),
  paymentMethod: RailSchema,
  fromCurrency: z.enum(["USDT_TRC20", "XOF"]),
  toCurrency: z.enum(["USDT_TRC20", "XOF"]),
  rate: z.string().openapi({ description: "one unit of fromCurrency in toCurrency" }),
  rateAsOf: z.string(),
  expiresAt: z.string().openapi({ description: "5 minutes after the lock" }),
}).openapi("RateLock");

const json = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

export function shopRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "post",
      path: "/pay/link/{slug}/checkout",
      tags: ["Paylinks (public)"],
      summary: "Create an order and its pay-in from a paylink (public)",
      description: "Reserves stock and the promo code's use, consumes the rate lock, and creates the " +
        "pay-in on the chosen rail, all in one transaction. Rate-limited per client address. An unpaid " +
        "order holds its stock and promo use for CHECKOUT_HOLD_MINUTES (default 10); one client address " +
        "holds at most max(1, 20 %) of a product's unsold stock, of a code's or a paylink's maxUses at " +
        "once (409 CONFLICT, cause HOLD_LIMIT_REACHED). A merchant that takes no payments: 403 " +
        "MERCHANT_STATUS_INVALID (suspended) or ACCOUNT_CLOSED.",
      operationId: "checkoutPaylink",
      security: [],
      middleware: [publicRateLimit("checkout")],
      request: { params: SlugParam, body: json(CheckoutBody) },
      responses: {
        201: jsonContent(successSchema(CheckoutResultSchema), "The order and its pay-in"),
        ...errorResponses,
        ...providerErrorResponses,
      },
    }),
    async (c) =>
      ok(
        c,
        await checkoutPaylink(c.get("deps"), c.req.valid("param").slug, {
          ...c.req.valid("json"),
          clientAddress: clientAddress(c),
        }),
        201,
      ),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/pay/link/{slug}/apply-promo",
      tags: ["Paylinks (public)"],
      summary: "Preview a promo code's discount (public)",
      description: "Errors: PROMO_CODE_INVALID, PROMO_CODE_INACTIVE, PROMO_CODE_EXPIRED, " +
        "PROMO_CODE_USAGE_LIMIT_REACHED (400). Counts nothing: the checkout checks the code again.",
      operationId: "applyPaylinkPromo",
      security: [],
      middleware: [publicRateLimit("apply-promo")],
      request: { params: SlugParam, body: json(PromoBody) },
      responses: {
        200: jsonContent(successSchema(PromoPreviewSchema), "Discount preview"),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, await previewPromo(c.get("deps"), c.req.valid("param").slug, c.req.valid("json"))),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/paylinks/{slug}/rate-lock",
      tags: ["Paylinks (public)"],
      summary: "Lock the exchange rate to a rail for 5 minutes (public)",
      description: "The checkout consumes a lock once: RATE_LOCK_NOT_FOUND, RATE_LOCK_EXPIRED, " +
        "RATE_LOCK_ALREADY_USED.",
      operationId: "lockPaylinkRate",
      security: [],
      middleware: [publicRateLimit("rate-lock")],
      request: { params: SlugParam, body: json(RateLockBody) },
      responses: { 201: jsonContent(successSchema(RateLockSchema), "The locked rate"), ...errorResponses },
    }),
    async (c) =>
      ok(
        c,
        await createRateLock(c.get("deps"), c.req.valid("param").slug, c.req.valid("json").paymentMethod),
        201,
      ),
  );

  return r;
}
