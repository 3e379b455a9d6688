// Operator accounts under /admin/api/operators (admins only): list, create (the password, TOTP secret and
// backup codes are shown once), change a role, disable or re-enable (which lifts a lock).
import { createRoute, z } from "@hono/zod-openapi";
import { createOperator, listOperators, updateOperator } from "../../domain/operators/accounts.ts";
import { ROLES } from "../../domain/operators/roles.ts";
import { newRouter } from "../router.ts";
import { errorResponses, idParam, jsonContent, ok, OPERATOR_SECURITY, successSchema } from "../envelope.ts";
import { requireAdmin } from "../middleware/admin_auth.ts";

const tags = ["Admin"];
const security = OPERATOR_SECURITY;

export const OperatorSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  status: z.enum(["ACTIVE", "DISABLED", "LOCKED"]),
  lockedUntil: z.string().nullable(),
  createdAt: z.string(),
}).openapi("Operator");

const CreatedOperatorSchema = OperatorSchema.extend({
  password: z.string().optional().openapi({ description: "only when none was given: the one chosen" }),
  totpSecret: z.string().openapi({ description: "base32, for an authenticator app; shown once" }),
  totpUri: z.string().openapi({ description: "otpauth:// URI of the same secret (for a QR code)" }),
  backupCodes: z.array(z.string()).openapi({ description: "ten one-time codes; shown once" }),
}).openapi("CreatedOperator");

export function adminOperatorRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/operators",
      operationId: "adminListOperators",
      tags,
      summary: "Operator accounts",
      security,
      middleware: [requireAdmin],
      responses: {
        200: jsonContent(successSchema(z.object({ items: z.array(OperatorSchema) })), "Operators"),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, { items: await listOperators(c.get("deps")) }),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/operators",
      operationId: "adminCreateOperator",
      tags,
      summary: "Create an operator: its password (chosen if none is given), TOTP secret and backup codes",
      security,
      middleware: [requireAdmin],
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({
                email: z.string().email().max(254).openapi({ example: "awa@example.com" }),
                role: z.enum(ROLES),
                password: z.string().min(12).max(200).optional(),
              }),
            },
          },
        },
      },
      responses: {
        201: jsonContent(successSchema(CreatedOperatorSchema), "The operator and its secrets, shown once"),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, await createOperator(c.get("deps"), c.get("operator"), c.req.valid("json")), 201),
  );

  r.openapi(
    createRoute({
      method: "patch",
      path: "/operators/{id}",
      operationId: "adminUpdateOperator",
      tags,
      summary: "Change an operator's role, disable it (its sessions end) or enable it (a lock is lifted)",
      security,
      middleware: [requireAdmin],
      request: {
        params: idParam("opr"),
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({
                role: z.enum(ROLES).optional(),
                status: z.enum(["ACTIVE", "DISABLED"]).optional(),
              }).refine((b) => b.role !== undefined || b.status !== undefined, "role or status")
                .openapi({
                  minProperties: 1,
                  description: "at least one of role or status",
                  example: { role: "reviewer" },
                }),
            },
          },
        },
      },
      responses: { 200: jsonContent(successSchema(OperatorSchema), "Updated"), ...errorResponses },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { after } = await updateOperator(c.get("deps"), c.get("operator"), id, c.req.valid("json"));
      return ok(c, after);
    },
  );
  return r;
}
