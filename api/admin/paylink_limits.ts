// The operator's plan limit on a merchant's paylinks, under /admin/api.
import { createRoute, z } from "@hono/zod-openapi";
import { getMerchant } from "../../domain/merchants/mod.ts";
import { getPaylinkLimit } from "../../domain/paylinks/create.ts";
import { setPaylinkLimitAs } from "../../domain/operators/merchant_actions.ts";
import { newRouter } from "../router.ts";
import { errorResponses, idParam, jsonContent, ok, OPERATOR_SECURITY, successSchema } from "../envelope.ts";
import { requireAdmin, requireViewer } from "../middleware/admin_auth.ts";

const LimitSchema = z.object({ merchantId: z.string(), maxPaylinks: z.number().int() }).openapi(
  "PaylinkPlanLimit",
);

export function adminPaylinkRoutes() {
  const r = newRouter();
  const params = idParam("mch", "MERCHANT_NOT_FOUND");
  r.openapi(
    createRoute({
      method: "get",
      path: "/merchants/{id}/paylink-limit",
      tags: ["Admin"],
      summary: "A merchant's plan limit on paylinks (per mode)",
      operationId: "adminGetPaylinkLimit",
      security: OPERATOR_SECURITY,
      middleware: [requireViewer],
      request: { params },
      responses: { 200: jsonContent(successSchema(LimitSchema), "The limit"), ...errorResponses },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await getMerchant(c.get("deps"), id);
      return ok(c, await getPaylinkLimit(c.get("deps"), id));
    },
  );
  r.openapi(
    createRoute({
      method: "put",
      path: "/merchants/{id}/paylink-limit",
      tags: ["Admin"],
      summary: "Set a merchant's plan limit on paylinks (LIMIT_EXCEEDED_PAYLINKS past it)",
      operationId: "adminSetPaylinkLimit",
      security: OPERATOR_SECURITY,
      middleware: [requireAdmin],
      request: {
        params,
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({ maxPaylinks: z.number().int().min(0).max(1_000_000) }),
            },
          },
        },
      },
      responses: { 200: jsonContent(successSchema(LimitSchema), "The limit"), ...errorResponses },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const max = c.req.valid("json").maxPaylinks;
      return ok(c, await setPaylinkLimitAs(c.get("deps"), c.get("operator"), id, max));
    },
  );
  return r;
}
