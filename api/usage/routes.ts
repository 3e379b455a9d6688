// GET /v1/merchant/usage/rate-limit, /v1/merchant/usage/limits and /v1/config.
import { createRoute, z } from "@hono/zod-openapi";
import { integrationConfig, limitsUsage, rateLimitUsage } from "../../domain/usage/mod.ts";
import { newRouter } from "../router.ts";
import { errorResponses, jsonContent, KEY_SECURITY, ok, successSchema } from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";

const BucketSchema = z.object({
  name: z.string().openapi({
    description: "`default` (every request of this key) or a named route",
    example: "default",
  }),
  scope: z.enum(["key", "merchant"]),
  limit: z.number().int(),
  used: z.number().int(),
  remaining: z.number().int(),
  resetAt: z.string(),
  resetSeconds: z.number().int(),
});

const RateLimitSchema = z.object({
  windowSeconds: z.number().int(),
  keyId: z.string(),
  buckets: z.array(BucketSchema),
}).openapi("RateLimitUsage");

const Quota = z.object({
  limit: z.number().int(),
  used: z.number().int(),
  remaining: z.number().int(),
  per: z.string(),
  code: z.string(),
});
const PlanLimit = z.object({
  limit: z.string(),
  used: z.string(),
  remaining: z.string(),
  unit: z.enum(["USDT_TRC20", "XOF", "count"]),
  per: z.string(),
  resetsAt: z.string(),
  code: z.string(),
}).openapi("PlanLimitUsage");

const TransactionMax = z.object({
  limit: z.string(),
  currency: z.enum(["USDT_TRC20", "XOF"]),
  per: z.string(),
  code: z.string(),
}).openapi("TransactionMaximum");
const BalanceCap = z.object({
  limit: z.string(),
  used: z.string().openapi({ description: "the wallets' balance in this currency" }),
  remaining: z.string(),
  reached: z.boolean(),
  currency: z.enum(["USDT_TRC20", "XOF"]),
  per: z.string(),
  code: z.string(),
}).openapi("BalanceCapUsage");

const LimitsSchema = z.object({
  isSandbox: z.boolean(),
  quotas: z.object({ paylinks: Quota, webhookEndpoints: Quota }),
  perOperation: z.object({
    bulkBatchItems: z.object({ limit: z.number().int(), per: z.string(), code: z.string() }),
    bulkMobileMoneyItemMaximum: z.object({ limit: z.string(), currency: z.string(), code: z.string() }),
    payoutManualApprovalAbove: z.object({ limit: z.string(), currency: z.string(), note: z.string() }),
  }),
  plan: z.record(z.string(), PlanLimit).openapi({
    description: "money limits of the merchant's plan counted per UTC day or month (moneyOutDailyUsdt, " +
      "moneyOutMonthlyUsdt, moneyOutDailyXof, moneyOutMonthlyXof, payinDailyUsdt, payinMonthlyUsdt, " +
      "payinDailyXof, payinMonthlyXof, conversionsDailyCount, conversionsDailyVolumeUsdt), each with what " +
      "the current period used",
  }),
  ceilings: z.object({
    transactionMaxUsdt: TransactionMax,
    transactionMaxXof: TransactionMax,
    balanceCapUsdt: BalanceCap,
    balanceCapXof: BalanceCap,
  }).openapi({
    description: "the merchant's per-transaction maxima (MERCHANT_LIMIT_EXCEEDED) and wallet balance caps " +
      "(BALANCE_CAP_REACHED: new pay-ins are refused while the balance with the pay-in would pass the cap; " +
      "a payment that arrives anyway is credited and `reached` turns true)",
  }),
}).openapi("LimitsUsage");

const ConfigSchema = z.object({
  isSandbox: z.boolean(),
  enabledRails: z.array(z.string()),
  network: z.object({ chain: z.literal("TRON"), name: z.string(), usdtContract: z.string() }),
  confirmations: z.object({ payin: z.number().int(), deposit: z.number().int(), payout: z.number().int() }),
  minimums: z.object({
    payin: z.object({ USDT_TRC20: z.string(), CARD: z.string(), MOBILE_MONEY: z.string() }),
    payout: z.string(),
    withdrawal: z.object({ USDT_TRC20: z.string(), XOF: z.string() }),
    bulkMobileMoneyItem: z.string(),
  }),
  fees: z.record(z.string(), z.string()).openapi({
    description: "the merchant's fee schedule (percent or flat)",
  }),
  payinDefaults: z.object({ expiresInSeconds: z.number().int() }),
  publicUrl: z.string(),
}).openapi("IntegrationConfig");

export function usageRoutes() {
  const r = newRouter();
  r.openapi(
    createRoute({
      method: "get",
      path: "/merchant/usage/rate-limit",
      tags: ["Usage"],
      summary: "Each rate-limit bucket's limit, what is left and when it resets (read without taking)",
      operationId: "getRateLimitUsage",
      description: "This request itself counts in `default`, like every request of the key; reading the " +
        "buckets takes nothing more.",
      security: KEY_SECURITY,
      middleware: [requireKey("analytics_read", "merchant")],
      responses: { 200: jsonContent(successSchema(RateLimitSchema), "The buckets"), ...errorResponses },
    }),
    async (c) => ok(c, await rateLimitUsage(c.get("deps"), c.get("auth"))),
  );
  r.openapi(
    createRoute({
      method: "get",
      path: "/merchant/usage/limits",
      tags: ["Usage"],
      summary: "Plan and quota limits with what is used of them",
      operationId: "getLimitsUsage",
      security: KEY_SECURITY,
      middleware: [requireKey("analytics_read", "merchant")],
      responses: { 200: jsonContent(successSchema(LimitsSchema), "The limits"), ...errorResponses },
    }),
    async (c) => ok(c, await limitsUsage(c.get("deps"), c.get("auth"))),
  );
  r.openapi(
    createRoute({
      method: "get",
      path: "/config",
      tags: ["Usage"],
      summary: "What an integration needs: rails, minimums, fees, confirmations, network, USDT contract",
      operationId: "getIntegrationConfig",
      description: "Read from the running configuration and the merchant's settings. Any secret or " +
        "restricted key with payments_read; a publishable key is refused (it shows the fee schedule).",
      security: KEY_SECURITY,
      middleware: [requireKey("payments_read", "merchant")],
      responses: { 200: jsonContent(successSchema(ConfigSchema), "The configuration"), ...errorResponses },
    }),
    (c) => ok(c, integrationConfig(c.get("deps"), c.get("auth"))),
  );
  return r;
}
