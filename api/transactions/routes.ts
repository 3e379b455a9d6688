// GET /v1/transactions (the unified history), /v1/transactions/export (starts a CSV export job) and
// /v1/transactions/:id. The export route is declared before /:id, which would otherwise take "export".
import { createRoute } from "@hono/zod-openapi";
import { getTransaction, listTransactions } from "../../domain/transactions/list.ts";
import { startTransactionsExport } from "../../domain/transactions/export.ts";
import { newRouter } from "../router.ts";
import { errorResponsesWith, jsonContent, KEY_SECURITY, ok, successSchema } from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";
import {
  ExportQuery,
  ExportStartedSchema,
  TransactionIdParam,
  TransactionListQuery,
  TransactionPageSchema,
  TransactionSchema,
} from "./schemas.ts";

export function transactionRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/transactions",
      tags: ["Transactions"],
      summary: "The unified history: pay-ins, payouts, withdrawals, conversions and bulk items, newest first",
      operationId: "listTransactions",
      security: KEY_SECURITY,
      middleware: [requireKey("transactions_read", "list")],
      request: { query: TransactionListQuery },
      responses: {
        200: jsonContent(TransactionPageSchema, "One page of the history, in the key's mode"),
        ...errorResponsesWith(["VALIDATION_ERROR", "INVALID_TRANSACTION_TYPE"]),
      },
    }),
    async (c) => ok(c, await listTransactions(c.get("deps"), c.get("auth"), c.req.valid("query"))),
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/transactions/export",
      tags: ["Transactions"],
      summary: "Start a CSV export of the history for a period (a background job)",
      description: "Answers at once with the job; poll GET /v1/exports/{jobId}/status, then fetch " +
        "/v1/exports/{jobId}/download. The same request while an identical job is unfinished answers that job.",
      operationId: "exportTransactions",
      security: KEY_SECURITY,
      middleware: [requireKey("transactions_read", "merchant")],
      request: { query: ExportQuery },
      responses: {
        202: jsonContent(ExportStartedSchema, "The job, queued (or the identical unfinished one)"),
        ...errorResponsesWith(["VALIDATION_ERROR", "RATE_LIMITED"]),
      },
    }),
    async (c) =>
      ok(c, await startTransactionsExport(c.get("deps"), c.get("auth"), c.req.valid("query")), 202),
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/transactions/{id}",
      tags: ["Transactions"],
      summary: "One transaction: a pay-in, payout, withdrawal, conversion, bulk item or deposit id",
      operationId: "getTransaction",
      security: KEY_SECURITY,
      middleware: [requireKey("transactions_read", "merchant")],
      request: { params: TransactionIdParam },
      responses: {
        200: jsonContent(successSchema(TransactionSchema), "The transaction"),
        ...errorResponsesWith(["NOT_FOUND"]),
      },
    }),
    async (c) => ok(c, await getTransaction(c.get("deps"), c.get("auth"), c.req.valid("param").id)),
  );
  return r;
}
