// POST /v1/sandbox/reset. (POST /v1/sandbox/payments/:id/simulate joins it with the pay-ins work.)
import { createRoute, z } from "@hono/zod-openapi";
import { resetSandbox } from "../../domain/sandbox/reset.ts";
import { newRouter } from "../router.ts";
import { errorResponses, jsonContent, KEY_SECURITY, ok, successSchema } from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";

const security = KEY_SECURITY;

const ResetSchema = z.object({
  message: z.string(),
  deleted: z.object({
    journals: z.number().int().openapi({ description: "sandbox ledger journals deleted" }),
    entries: z.number().int().openapi({ description: "their ledger entries" }),
    events: z.number().int(),
    webhookDeliveries: z.number().int(),
    chainTransfers: z.number().int(),
    payins: z.number().int(),
  }).catchall(z.number().int()).openapi({
    description: "rows deleted per kind; more kinds appear as sandbox features are added",
  }),
}).openapi("SandboxReset");

export function sandboxRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "post",
      path: "/sandbox/reset",
      tags: ["Sandbox"],
      summary: "Delete all sandbox transactions and balances",
      operationId: "resetSandbox",
      description: "Needs a sandbox secret key (or a sandbox restricted key with `sandbox_write`). " +
        "A live key is refused with 403 FORBIDDEN, cause LIVE_KEY_SANDBOX_REQUEST; live data is never touched. " +
        "Webhook endpoints and keys are kept.",
      security,
      middleware: [requireKey("sandbox_write", "write")],
      responses: {
        200: jsonContent(successSchema(ResetSchema), "What the reset deleted"),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, await resetSandbox(c.get("deps"), c.get("auth"))),
  );
  return r;
}
