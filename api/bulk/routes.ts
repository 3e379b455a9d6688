// /v1/bulk-payments: batches of payments on one rail (USDT on TRON, or mobile money in XOF), items
// added as JSON or imported from CSV/XLSX, validated, executed with one debit, retried, cancelled,
// reported. Scopes: payouts_read / payouts_write (a batch is a set of payouts); executing or retrying a
// MOBILE_MONEY batch also needs withdrawals_write, the scope of XOF withdrawals (domain/bulk/controls.ts).
import { createRoute, z } from "@hono/zod-openapi";
import type { HonoRequest } from "hono";
import {
  addItems,
  cancelBatch,
  createBatch,
  executeBatch,
  getBatch,
  importItems,
  retryBatch,
  validateBatch,
} from "../../domain/bulk/batch.ts";
import { templateFile, XLSX_TYPE } from "../../domain/bulk/files.ts";
import { DEFAULT_BULK_RAIL, MAX_ITEMS_PER_BATCH } from "../../domain/bulk/items.ts";
import { batchDetail, batchReport } from "../../domain/bulk/view.ts";
import { AppError } from "../../domain/errors.ts";
import { newRouter } from "../router.ts";
import { errorResponses, errorResponsesWith, jsonContent, ok, successSchema, untyped } from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";
import { idempotentMoney } from "../middleware/idempotency.ts";
import { idempotencyKeyHeader } from "../shape_schemas.ts";
import {
  BatchSchema,
  BatchWithItems,
  BULK_RUN_CODES,
  BULK_RUN_KEY_REQUIRED,
  CreateBody,
  IdParam,
  ItemsBody,
  security,
  tags,
  TemplateQuery,
  ValidateSchema,
} from "./schemas.ts";

/** Uploaded bytes: multipart field `file`, or the file itself as the body (text/csv or the XLSX type). */
async function uploadedBytes(req: HonoRequest): Promise<Uint8Array> {
  // HonoRequest caches the body: the route validator may have read it already.
  const type = req.header("content-type") ?? "";
  if (/^multipart\/form-data/i.test(type)) {
    let form: FormData;
    try {
      form = await req.formData();
    } catch {
      throw new AppError("BAD_REQUEST", "Malformed multipart body");
    }
    const file = form.get("file");
    if (!(file instanceof File)) {
      throw new AppError("IMPORT_VALIDATION_FAILED", "No file: send it in the multipart field `file`", {
        details: [{ field: "file", reason: "required (multipart field `file`)" }],
      });
    }
    return new Uint8Array(await file.arrayBuffer());
  }
  return new Uint8Array(await req.arrayBuffer());
}

const postRoute = (
  path: string,
  operationId: string,
  summary: string,
  response: z.ZodType,
  extra: Record<string, unknown> = {},
) =>
  createRoute({
    method: "post",
    path,
    operationId,
    tags,
    summary,
    security,
    middleware: [requireKey("payouts_write", "write")],
    request: { params: IdParam },
    responses: { 200: jsonContent(successSchema(response), summary), ...errorResponses },
    ...extra,
  });

export function bulkRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "post",
      path: "/bulk-payments",
      operationId: "createBulkPayment",
      tags,
      summary: "Create an empty DRAFT batch on one rail",
      security,
      middleware: [requireKey("payouts_write", "write")],
      request: { body: { required: true, content: { "application/json": { schema: CreateBody } } } },
      responses: { 201: jsonContent(successSchema(BatchSchema), "The new batch"), ...errorResponses },
    }),
    async (c) => {
      const deps = c.get("deps");
      const batch = await createBatch(deps, c.get("auth"), c.req.valid("json"));
      return ok(c, await batchDetail(deps, batch, false), 201);
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/bulk-payments/template",
      operationId: "getBulkPaymentTemplate",
      tags,
      summary: "Download the import template of a rail (XLSX by default, or CSV)",
      security,
      middleware: [requireKey("payouts_read", "read")],
      request: { query: TemplateQuery },
      responses: {
        200: {
          description: "The template file",
          content: {
            [XLSX_TYPE]: { schema: z.string().openapi({ format: "binary" }) },
            "text/csv": { schema: z.string() },
          },
        },
        ...errorResponses,
      },
    }),
    async (c) => {
      const { rail = DEFAULT_BULK_RAIL, format } = c.req.valid("query");
      const bytes = await templateFile(rail, format);
      const name = `bulk-${rail.toLowerCase().replace("_", "-")}-template.${format}`;
      return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
        "content-type": format === "csv" ? "text/csv; charset=utf-8" : XLSX_TYPE,
        "content-disposition": `attachment; filename="${name}"`,
      });
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/bulk-payments/{id}/items",
      operationId: "addBulkPaymentItems",
      tags,
      summary: "Add items to a DRAFT batch (all or none)",
      security,
      middleware: [requireKey("payouts_write", "write")],
      request: {
        params: IdParam,
        body: { required: true, content: { "application/json": { schema: ItemsBody } } },
      },
      responses: { 200: jsonContent(successSchema(BatchSchema), "The batch"), ...errorResponses },
    }),
    async (c) => {
      const deps = c.get("deps");
      const batch = await addItems(deps, c.get("auth"), c.req.valid("param").id, c.req.valid("json").items);
      return ok(c, await batchDetail(deps, batch, false));
    },
  );

  r.openapi(
    postRoute(
      "/bulk-payments/{id}/import",
      "importBulkPaymentItems",
      "Import items from a CSV or XLSX file into a DRAFT batch (all rows or none)",
      BatchSchema,
      {
        description: "Multipart with the file in field `file`, or the file as the body. The format is read " +
          "from the content. Every bad row is listed (IMPORT_VALIDATION_FAILED, `details[].line`); formulas " +
          `are refused; at most ${MAX_ITEMS_PER_BATCH} items a batch (LIMIT_EXCEEDED_BULK_BATCH); 1 MB at most.`,
        request: {
          params: IdParam,
          body: {
            required: true,
            content: {
              "multipart/form-data": {
                // Validated by uploadedBytes (the raw CSV or XLSX body shares this route): no file part
                // is IMPORT_VALIDATION_FAILED. The document still says the part is required.
                schema: z.object({ file: z.any().optional().openapi({ type: "string", format: "binary" }) })
                  .openapi({ required: ["file"] }),
              },
              "text/csv": { schema: z.string() },
              [XLSX_TYPE]: { schema: z.string().openapi({ format: "binary" }) },
            },
          },
        },
      },
    ),
    async (c) => {
      const deps = c.get("deps");
      const bytes = await uploadedBytes(c.req);
      const batch = await importItems(deps, c.get("auth"), c.req.valid("param").id, bytes);
      return ok(c, await batchDetail(deps, batch, false));
    },
  );

  r.openapi(
    postRoute(
      "/bulk-payments/{id}/validate",
      "validateBulkPayment",
      "Check the balance and preview the total fee; nothing is reserved",
      ValidateSchema,
    ),
    async (c) => {
      const deps = c.get("deps");
      const result = await validateBatch(deps, c.get("auth"), c.req.valid("param").id);
      return ok(c, { ...(await batchDetail(deps, result.batch, false)), balanceCheck: result.balanceCheck });
    },
  );

  for (
    const [action, operationId, summary, run] of [
      [
        "execute",
        "executeBulkPayment",
        "Debit the batch once and queue its items (asynchronous)",
        executeBatch,
      ],
      [
        "retry",
        "retryBulkPayment",
        "Queue again only the failed items of a PARTIALLY_COMPLETED batch",
        retryBatch,
      ],
    ] as const
  ) {
    r.openapi(
      createRoute({
        method: "post",
        path: `/bulk-payments/{id}/${action}`,
        operationId,
        tags,
        summary,
        description:
          "Idempotency-Key (a UUID) is recommended and honoured. A MOBILE_MONEY batch also needs " +
          "the scope withdrawals_write; if any number is not a registered fiat destination (MOMO) past its " +
          "cooldown, the batch is debited but waits in PENDING_REVIEW for an operator (`reviewReason`).",
        security,
        middleware: [requireKey("payouts_write", "write")],
        request: {
          params: IdParam,
          headers: z.object({ "idempotency-key": idempotencyKeyHeader(BULK_RUN_KEY_REQUIRED) }),
        },
        responses: {
          202: jsonContent(successSchema(BatchSchema), "Processing"),
          ...errorResponsesWith(BULK_RUN_CODES),
        },
      }),
      async (c) => {
        const caller = c.get("auth");
        const id = c.req.valid("param").id;
        return untyped(
          await idempotentMoney(
            c,
            { required: BULK_RUN_KEY_REQUIRED, status: 202 },
            async (_tx, txDeps) => await batchDetail(txDeps, await run(txDeps, caller, id), false),
          ),
        );
      },
    );
  }

  r.openapi(
    postRoute(
      "/bulk-payments/{id}/cancel",
      "cancelBulkPayment",
      "Cancel a DRAFT or VALIDATED batch, or a PENDING_REVIEW one (its debit returns to the wallet)",
      BatchSchema,
    ),
    async (c) => {
      const deps = c.get("deps");
      const batch = await cancelBatch(deps, c.get("auth"), c.req.valid("param").id);
      return ok(c, await batchDetail(deps, batch, false));
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/bulk-payments/{id}",
      operationId: "getBulkPayment",
      tags,
      summary: "Batch status and per-item results",
      security,
      middleware: [requireKey("payouts_read", "read")],
      request: { params: IdParam },
      responses: { 200: jsonContent(successSchema(BatchWithItems), "The batch"), ...errorResponses },
    }),
    async (c) => {
      const deps = c.get("deps");
      const batch = await getBatch(deps, c.get("auth"), c.req.valid("param").id);
      return ok(c, await batchDetail(deps, batch));
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/bulk-payments/{id}/export",
      operationId: "exportBulkPayment",
      tags,
      summary: "CSV report: one line per item with its outcome",
      security,
      middleware: [requireKey("payouts_read", "read")],
      request: { params: IdParam },
      responses: {
        200: { description: "The report", content: { "text/csv": { schema: z.string() } } },
        ...errorResponses,
      },
    }),
    async (c) => {
      const deps = c.get("deps");
      const batch = await getBatch(deps, c.get("auth"), c.req.valid("param").id);
      return c.body(await batchReport(deps, batch), 200, {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${batch.id}.csv"`,
      });
    },
  );
  return r;
}
