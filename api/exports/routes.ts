// GET /v1/exports/:jobId/status and /download: any export job of the caller (domain/exports), whatever its
// kind. Another merchant's job, or one of the other mode, is NOT_FOUND like an unknown id.
import { createRoute, z } from "@hono/zod-openapi";
import { EXPORT_STATUSES, getExportStatus, openExportDownload } from "../../domain/exports/jobs.ts";
import { ID_ALPHABET, ID_BODY_LENGTH, isWellFormedId } from "../../domain/ids.ts";
import { newRouter } from "../router.ts";
import { errorResponsesWith, jsonContent, KEY_SECURITY, ok, successSchema } from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";

const JobIdParam = z.object({
  jobId: z.string().refine((v) => isWellFormedId("exp", v), {
    message: "not an export job id",
    params: { notFound: "NOT_FOUND" },
  }).openapi({
    param: { name: "jobId", in: "path" },
    pattern: `^exp_[${ID_ALPHABET}]{${ID_BODY_LENGTH}}$`,
    example: `exp_01k${"0".repeat(ID_BODY_LENGTH - 3)}`,
  }),
});

const ExportStatusSchema = z.object({
  jobId: z.string(),
  kind: z.string().openapi({ description: "the file's form: TRANSACTIONS_CSV", example: "TRANSACTIONS_CSV" }),
  status: z.enum(EXPORT_STATUSES),
  from: z.string().nullable().openapi({ description: "the period's start as given" }),
  to: z.string().nullable().openapi({ description: "the period's end as given" }),
  rows: z.number().int().openapi({ description: "rows written so far" }),
  bytes: z.number().int().openapi({ description: "size of the file so far" }),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  expiresAt: z.string().nullable().openapi({ description: "the file is deleted then (7 days after)" }),
  downloadUrl: z.string().nullable().openapi({ description: "set once COMPLETED" }),
  error: z.string().nullable(),
}).openapi("ExportStatus");

export function exportRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/exports/{jobId}/status",
      tags: ["Transactions"],
      summary: "Where an export job stands",
      operationId: "getExportStatus",
      security: KEY_SECURITY,
      middleware: [requireKey("transactions_read", "merchant")],
      request: { params: JobIdParam },
      responses: {
        200: jsonContent(successSchema(ExportStatusSchema), "The job"),
        ...errorResponsesWith(["NOT_FOUND"]),
      },
    }),
    async (c) => ok(c, await getExportStatus(c.get("deps"), c.get("auth"), c.req.valid("param").jobId)),
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/exports/{jobId}/download",
      tags: ["Transactions"],
      summary: "The finished file (streamed)",
      operationId: "downloadExport",
      security: KEY_SECURITY,
      middleware: [requireKey("transactions_read", "merchant")],
      request: { params: JobIdParam },
      responses: {
        200: {
          description: "CSV with a header row, oldest first; amounts exact, dates ISO 8601 UTC; text a " +
            "spreadsheet would run as a formula (leading =, +, -, @, tab, CR) starts with an apostrophe",
          content: { "text/csv": { schema: z.string() } },
        },
        ...errorResponsesWith(["NOT_FOUND", "INVALID_STATE"]),
      },
    }),
    async (c) => {
      const file = await openExportDownload(c.get("deps"), c.get("auth"), c.req.valid("param").jobId);
      return c.body(file.stream, 200, {
        "Content-Type": file.contentType,
        "Content-Length": String(file.length),
        "Content-Disposition": `attachment; filename="${file.filename}"`,
        "Cache-Control": "no-store",
        // deno-lint-ignore no-explicit-any
      }) as any;
    },
  );
  return r;
}
