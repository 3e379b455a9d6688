// An operator sets a merchant's own money limits (daily and monthly money-out caps, daily conversion
// count and USDT volume);
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
const LimitsSchema = z.object({
  moneyOutDailyUsdt: z.string(),
  moneyOutMonthlyUsdt: z.string(),
  conversionsDailyCount: z.string(),
  conversionsDailyVolumeUsdt: z.string(),
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
      summary: "Set a merchant's money limits (DAILY_CAP_EXCEEDED, MONTHLY_LIMIT_EXCEEDED, " +
        "DAILY_CONVERSION_COUNT_LIMIT, DAILY_CONVERSION_LIMIT past them); null restores the default",
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
