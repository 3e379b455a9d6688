// GET /admin/api/mail-outbox: the mail seam's outbox, newest first. In development nothing leaves the
// machine, so this is where an operator (and a test) reads the e-mails customers would have received.
import { createRoute, z } from "@hono/zod-openapi";
import { readOutbox } from "../../domain/mail/outbox.ts";
import { newRouter } from "../router.ts";
import { errorResponses, jsonContent, ok, OPERATOR_SECURITY, successSchema } from "../envelope.ts";
import { requireAdmin } from "../middleware/admin_auth.ts";

const MailSchema = z.object({
  id: z.string(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  kind: z.string().openapi({ description: "what it is about, e.g. subscription.renewal" }),
  refId: z.string().nullable().openapi({ description: "the record it names (a subscription or renewal id)" }),
  status: z.enum(["PENDING", "SENT", "FAILED"]),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  isSandbox: z.boolean(),
  sentAt: z.string().nullable(),
  createdAt: z.string(),
}).openapi("OutboxMail");

export function adminMailRoutes() {
  const r = newRouter();
  r.openapi(
    createRoute({
      method: "get",
      path: "/mail-outbox",
      operationId: "adminListMailOutbox",
      tags: ["Admin"],
      summary: "The e-mails the gateway wrote (sent or waiting), newest first",
      security: OPERATOR_SECURITY,
      middleware: [requireAdmin],
      request: {
        query: z.object({
          to: z.string().max(254).optional(),
          refId: z.string().max(64).optional(),
          limit: z.coerce.number().int().min(1).max(200).default(50),
        }),
      },
      responses: {
        200: jsonContent(successSchema(z.object({ items: z.array(MailSchema) })), "Messages"),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, { items: await readOutbox(c.get("deps"), c.req.valid("query")) }),
  );
  return r;
}
