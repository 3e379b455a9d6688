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
} from "../domain/bulk/batch.ts";
import { templateFile, XLSX_TYPE } from "../domain/bulk/files.ts";
import { BULK_RAILS, DEFAULT_BULK_RAIL, MAX_ITEMS_PER_BATCH } from "../domain/bulk/items.ts";
import { BATCH_STATUSES, ITEM_STATUSES } from "../domain/bulk/states.ts";
import { batchDetail, batchReport } from "../domain/bulk/view.ts";
import { AppError } from "../domain/errors.ts";
import { newRouter } from "./app.ts";
import {
  errorResponses,
  errorResponsesWith,
  idParam,
  jsonContent,
  KEY_SECURITY,
  ok,
  successSchema,
  untyped,
} from "./envelope.ts";
import { requireKey } from "./middleware/auth.ts";
import { idempotentMoney } from "./middleware/idempotency.ts";
import type { ErrorCode } from "../domain/errors.ts";
import {
  BULK_RECIPIENT_PATTERN,
  IDEMPOTENCY_CODES,
  idempotencyKeyHeader,
  USDT_AMOUNT_PATTERN,
} from "./shape_schemas.ts";

/** Execute and retry honour an Idempotency-Key without requiring one. */
const BULK_RUN_KEY_REQUIRED = false;

/** What execute and retry may answer: the batch's state, verification, the whitelist, the balance. */
const BULK_RUN_CODES: ErrorCode[] = [
  "INVALID_TRANSACTION_STATUS",
  "BAD_REQUEST",
  "KYB_REQUIRED",
  "ADDRESS_NOT_WHITELISTED",
  "INSUFFICIENT_BALANCE",
  "WALLET_NOT_FOUND",
  ...IDEMPOTENCY_CODES,
];

const security = KEY_SECURITY;
const tags = ["Bulk payments"];
const IdParam = idParam("blk");

const Rail = z.enum(BULK_RAILS).openapi({
  description: "USDT_TRC20: USDT on TRON to whitelisted addresses; MOBILE_MONEY: XOF to Burkina Faso numbers",
});
/** Optional where it is chosen, without an OpenAPI `default` (generated clients would then require it). */
const ChosenRail = Rail.optional().openapi({
  description:
    `USDT_TRC20: USDT on TRON to whitelisted addresses; MOBILE_MONEY: XOF to Burkina Faso numbers. ` +
    `${DEFAULT_BULK_RAIL} when absent`,
});

const CreateBody = z.strictObject({
  rail: ChosenRail,
  label: z.string().max(100).optional(),
}).openapi("CreateBulkPayment");

const ItemBody = z.strictObject({
  walletAddress: z.string().max(64).openapi({
    pattern: BULK_RECIPIENT_PATTERN,
    description: "USDT_TRC20: a TRON address whitelisted for PAYOUT; MOBILE_MONEY: +226 then 8 digits",
    example: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE",
  }),
  amount: z.string().max(40).openapi({
    pattern: USDT_AMOUNT_PATTERN,
    description: "USDT (up to 6 decimals, minimum 5) or whole XOF (minimum 500)",
    example: "25.50",
  }),
  recipientName: z.string().max(100).optional(),
  reference: z.string().max(128).optional(),
});

const ItemsBody = z.strictObject({
  items: z.array(ItemBody).min(1).refine((items) => items.length <= MAX_ITEMS_PER_BATCH, {
    message: `at most ${MAX_ITEMS_PER_BATCH} items a batch`,
    params: { refusedAs: "LIMIT_EXCEEDED_BULK_BATCH" },
    when: (payload) => Array.isArray(payload.value),
  }).openapi({ description: "at least one item, at most 1,000 a batch", maxItems: MAX_ITEMS_PER_BATCH }),
}).openapi("AddBulkItems");

const Counts = z.object({
  pending: z.number().int(),
  queued: z.number().int(),
  processing: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  cancelled: z.number().int(),
});

const BatchFields = {
  id: z.string(),
  label: z.string().nullable(),
  rail: Rail,
  currency: z.enum(["USDT_TRC20", "XOF"]),
  status: z.enum(BATCH_STATUSES),
  itemCount: z.number().int(),
  totalAmount: z.string(),
  totalFee: z.string(),
  totalDebited: z.string().openapi({ description: "amounts plus fees, debited at execution" }),
  attempt: z.number().int().openapi({ description: "0 before execution, 1 once executed, +1 per retry" }),
  counts: Counts,
  createdAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
  validatedAt: z.string().nullable(),
  executedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  cancelledAt: z.string().nullable(),
  reviewReason: z.string().nullable().openapi({
    description: "MOBILE_MONEY: why the executed batch waits for an operator (PENDING_REVIEW): the lines " +
      "whose number is not a registered fiat destination past its cooldown",
  }),
  reviewedAt: z.string().nullable().openapi({ description: "when an operator approved or rejected it" }),
  reviewNote: z.string().nullable().openapi({
    description: "the operator's note (always given on REJECTED)",
  }),
};

const ItemSchema = z.object({
  id: z.string(),
  position: z.number().int(),
  walletAddress: z.string(),
  operator: z.string().nullable(),
  amount: z.string(),
  fee: z.string(),
  recipientName: z.string().nullable(),
  reference: z.string().nullable(),
  status: z.enum(ITEM_STATUSES),
  attempt: z.number().int(),
  paymentId: z.string().nullable().openapi({ description: "the payout (pout_) of the current attempt" }),
  paymentStatus: z.string().nullable(),
  txHash: z.string().nullable(),
  failureReason: z.string().nullable(),
}).openapi("BulkPaymentItem");

export const BatchSchema = z.object(BatchFields).openapi("BulkPayment");
export const BatchWithItems = z.object({ ...BatchFields, items: z.array(ItemSchema) }).openapi(
  "BulkPaymentDetail",
);

const BalanceCheck = z.union([
  z.object({ sufficient: z.boolean(), required: z.string(), available: z.string() }),
  z.object({ sandbox: z.literal(true), skipped: z.literal(true), required: z.string() }),
]);
const ValidateSchema = z.object({ ...BatchFields, balanceCheck: BalanceCheck }).openapi(
  "BulkPaymentValidation",
);

const TemplateQuery = z.object({
  rail: ChosenRail,
  format: z.enum(["xlsx", "csv"]).default("xlsx"),
});

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
