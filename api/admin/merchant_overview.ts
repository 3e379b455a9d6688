// GET /admin/api/merchants/{id}/overview: what the console's merchant screen shows, for automation too:
// the merchant's settings, every API key with its state, and each webhook endpoint's delivery health.
import { createRoute, z } from "@hono/zod-openapi";
import { HEALTH_WINDOW_HOURS, merchantOverview } from "../../domain/operators/merchant_overview.ts";
import { KeySchema } from "../keys/schemas.ts";
import { newRouter } from "../router.ts";
import { errorResponses, idParam, jsonContent, ok, OPERATOR_SECURITY, successSchema } from "../envelope.ts";
import { requireViewer } from "../middleware/admin_auth.ts";
import { MerchantSchema, merchantView } from "./merchants.ts";

const WebhookHealthSchema = z.object({
  endpointId: z.string(),
  url: z.string(),
  mode: z.enum(["live", "sandbox"]),
  status: z.string(),
  consecutiveFailures: z.number().int(),
  succeeded: z.number().int().openapi({ description: `deliveries of the last ${HEALTH_WINDOW_HOURS} h` }),
  failed: z.number().int().openapi({ description: `deliveries of the last ${HEALTH_WINDOW_HOURS} h` }),
  pending: z.number().int().openapi({ description: "the whole backlog still to deliver, whatever its age" }),
  oldestPendingSeconds: z.number().int().nullable(),
});

const OverviewSchema = z.object({
  merchant: MerchantSchema,
  keys: z.array(KeySchema),
  webhooks: z.array(WebhookHealthSchema),
}).openapi("AdminMerchantOverview");

export function adminMerchantOverviewRoutes() {
  const r = newRouter();
  r.openapi(
    createRoute({
      method: "get",
      path: "/merchants/{id}/overview",
      operationId: "adminGetMerchantOverview",
      tags: ["Admin"],
      summary: "A merchant's settings, API keys and webhook delivery health (the console's merchant screen)",
      security: OPERATOR_SECURITY,
      middleware: [requireViewer],
      request: { params: idParam("mch", "MERCHANT_NOT_FOUND") },
      responses: { 200: jsonContent(successSchema(OverviewSchema), "The merchant"), ...errorResponses },
    }),
    async (c) => {
      const view = await merchantOverview(c.get("deps"), c.req.valid("param").id);
      return ok(c, { merchant: merchantView(view.merchant), keys: view.keys, webhooks: view.webhooks });
    },
  );
  return r;
}
