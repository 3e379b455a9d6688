// The audit trail under /admin/api/audit: an item's records (any operator), a period as CSV and the
// chain's check (admins). Nothing here changes a record: the trail has no update or delete route.
import { createRoute, z } from "@hono/zod-openapi";
import { exportAuditCsv } from "../../domain/audit/export.ts";
import { itemAudit, verifyAuditChain } from "../../domain/audit/trail.ts";
import { newRouter } from "../router.ts";
import { errorResponses, jsonContent, ok, OPERATOR_SECURITY, successSchema } from "../envelope.ts";
import { requireAdmin, requireViewer } from "../middleware/admin_auth.ts";

const tags = ["Admin"];
const security = OPERATOR_SECURITY;

export const AuditRecordSchema = z.object({
  seq: z.number().int(),
  at: z.string(),
  actor: z.object({
    kind: z.enum(["token", "operator", "cli"]),
    id: z.string(),
    label: z.string().openapi({ description: '"token", the operator\'s e-mail, or "cli:<system user>"' }),
    role: z.string(),
    address: z.string(),
  }),
  action: z.string().openapi({ example: "payout.approve" }),
  itemType: z.string().nullable(),
  itemId: z.string().nullable(),
  note: z.string().nullable(),
  before: z.unknown().openapi({ description: "the item before (JSON), or null" }),
  after: z.unknown().openapi({ description: "the item after (JSON), or null" }),
  prevHash: z.string(),
  hash: z.string().openapi({ description: "SHA-256 of the record's canonical JSON, previous hash included" }),
}).openapi("AuditRecord");

const IsoTime = z.string().datetime({ offset: true }).openapi({ example: "2026-11-01T00:00:00Z" });

export function adminAuditRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/audit",
      operationId: "adminListItemAudit",
      tags,
      summary:
        "The audit records of one item (a payout, withdrawal, merchant, key, operator...), oldest first",
      security,
      middleware: [requireViewer],
      request: { query: z.object({ itemId: z.string().min(1).max(64) }) },
      responses: {
        200: jsonContent(successSchema(z.object({ items: z.array(AuditRecordSchema) })), "Records"),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, { items: await itemAudit(c.get("deps"), c.req.valid("query").itemId) }),
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/audit/export",
      operationId: "adminExportAudit",
      tags,
      summary: "The audit records of a period [from, to) as CSV, in chain order (streamed)",
      security,
      middleware: [requireAdmin],
      request: { query: z.object({ from: IsoTime, to: IsoTime }) },
      responses: {
        200: {
          description: "CSV with a header row and each record's hashes; text a spreadsheet would run as a " +
            "formula starts with a quote",
          content: { "text/csv": { schema: z.string() } },
        },
        ...errorResponses,
      },
    }),
    (c) => {
      const q = c.req.valid("query");
      const stream = exportAuditCsv(c.get("deps"), { from: new Date(q.from), to: new Date(q.to) });
      return c.body(stream, 200, {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="audit.csv"`,
        "Cache-Control": "no-store",
        // deno-lint-ignore no-explicit-any
      }) as any;
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/audit/verify",
      operationId: "adminVerifyAudit",
      tags,
      summary: "Check the whole hash chain (as `deno task cli audit verify` does)",
      security,
      middleware: [requireAdmin],
      responses: {
        200: jsonContent(
          successSchema(z.object({
            ok: z.boolean(),
            records: z.number().int().openapi({ description: "records verified (before the break, if any)" }),
            head: z.string().optional(),
            brokenAt: z.number().int().optional(),
            reason: z.string().optional(),
          })),
          "The check",
        ),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, await verifyAuditChain(c.get("deps"))),
  );
  return r;
}
