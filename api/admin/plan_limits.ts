// An operator sets a merchant's own limits (daily and monthly money-out and pay-in caps in USDT and XOF,
// daily conversion count and USDT volume, per-transaction maxima, wallet balance caps, webhook endpoints);
// null restores the configured default. Admin role; audited.
import { createRoute, z } from "@hono/zod-openapi";
import { planLimitsOf, setPlanLimitsAs } from "../../domain/limits/plan.ts";
import { getMerchant } from "../../domain/merchants/mod.ts";
import { errorResponses, idParam, jsonContent, ok, OPERATOR_SECURITY, successSchema } from "../envelope.ts";
import { requireAdmin, requireViewer } from "../middleware/admin_auth.ts";
import { newRouter } from "../router.ts";

const params = idParam("mch", "MERCHANT_NOT_FOUND");
const Amount = z.string().regex(/^(0|[1-9][0-9]{0,14})(\.[0-9]{1,6})?$/, "a decimal string").max(25);
const Count = z.string().regex(/^(0|[1-9][0-9]{0,8})$/, "a whole number").max(10);
const Xof = z.string().regex(/^(0|[1-9][0-9]{0,14})$/, "a whole number of XOF").max(15);
const Endpoints = z.string().regex(/^([1-9][0-9]{0,2}|1000)$/, "a whole number from 1 to 1000").max(4);
const LimitsSchema = z.object({
  moneyOutDailyUsdt: z.string(),
  moneyOutMonthlyUsdt: z.string(),
  conversionsDailyCount: z.string(),
  conversionsDailyVolumeUsdt: z.string(),
  moneyOutDailyXof: z.string(),
  moneyOutMonthlyXof: z.string(),
  payinDailyUsdt: z.string(),
  payinMonthlyUsdt: z.string(),
  payinDailyXof: z.string(),
  payinMonthlyXof: z.string(),
  transactionMaxUsdt: z.string(),
  transactionMaxXof: z.string(),
  balanceCapUsdt: z.string(),
  balanceCapXof: z.string(),
  webhookEndpoints: z.string(),
}).openapi("PlanLimits");

export function adminPlanLimitRoutes() {
  const r = newRouter();
  r.openapi(
    createRoute({
      method: "get",
      path: "/merchants/{id}/plan-limits",
      tags: ["Admin"],
      summary: "A merchant's money limits (its own, or the configured defaults)",
      operationId: "adminGetPlanLimits",
      security: OPERATOR_SECURITY,
      middleware: [requireViewer],
      request: { params },
      responses: { 200: jsonContent(successSchema(LimitsSchema), "The limits"), ...errorResponses },
    }),
    async (c) => {
      const deps = c.get("deps");
      const merchant = await getMerchant(deps, c.req.valid("param").id);
      return ok(c, await planLimitsOf(deps, merchant.id));
    },
  );
  r.openapi(
    createRoute({
      method: "patch",
      path: "/merchants/{id}/plan-limits",
      tags: ["Admin"],
      summary: "Set a merchant's limits (DAILY_CAP_EXCEEDED, MONTHLY_LIMIT_EXCEEDED, " +
        "DAILY_CONVERSION_COUNT_LIMIT, DAILY_CONVERSION_LIMIT, MERCHANT_LIMIT_EXCEEDED, BALANCE_CAP_REACHED, " +
        "LIMIT_EXCEEDED_WEBHOOKS past them); null restores the default",
      operationId: "adminSetPlanLimits",
      security: OPERATOR_SECURITY,
      middleware: [requireAdmin],
      request: {
        params,
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({
                moneyOutDailyUsdt: Amount.nullable().optional(),
                moneyOutMonthlyUsdt: Amount.nullable().optional(),
                conversionsDailyCount: Count.nullable().optional(),
                conversionsDailyVolumeUsdt: Amount.nullable().optional(),
                moneyOutDailyXof: Xof.nullable().optional(),
                moneyOutMonthlyXof: Xof.nullable().optional(),
                payinDailyUsdt: Amount.nullable().optional(),
                payinMonthlyUsdt: Amount.nullable().optional(),
                payinDailyXof: Xof.nullable().optional(),
                payinMonthlyXof: Xof.nullable().optional(),
                transactionMaxUsdt: Amount.nullable().optional(),
                transactionMaxXof: Xof.nullable().optional(),
                balanceCapUsdt: Amount.nullable().optional(),
                balanceCapXof: Xof.nullable().optional(),
                webhookEndpoints: Endpoints.nullable().optional(),
              }),
            },
          },
        },
      },
      responses: { 200: jsonContent(successSchema(LimitsSchema), "The limits"), ...errorResponses },
    }),
    async (c) =>
      ok(
        c,
        await setPlanLimitsAs(c.get("deps"), c.get("operator"), c.req.valid("param").id, c.req.valid("json")),
      ),
  );
  return r;
}
