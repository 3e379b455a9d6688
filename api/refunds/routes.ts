// Refunds of pay-ins: ask one (reserved at once, Idempotency-Key required), list, retrieve, cancel while
// it waits for approval. Scopes: refunds_write / refunds_read (ours; the specification shows none).
import { createRoute, z } from "@hono/zod-openapi";
import { assertOwnPayin, requestRefund } from "../../domain/refunds/create.ts";
import { getRefund, listRefundsOf } from "../../domain/refunds/queries.ts";
import { cancelRefund } from "../../domain/refunds/review.ts";
import { refundView } from "../../domain/refunds/view.ts";
// Registers the REFUND disbursement finisher wherever the API runs (a callback may finish a refund).
import "../../domain/refunds/send.ts";
import { newRouter } from "../router.ts";
import {
  errorResponses,
  errorResponsesWith,
  idParam,
  jsonContent,
  KEY_SECURITY,
  ok,
  pagedSchema,
  pageOf,
  PageQuerySchema,
  successSchema,
  untyped,
} from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";
import { assertIdempotencyKey, idempotentMoney } from "../middleware/idempotency.ts";
import { IDEMPOTENCY_CODES, idempotencyKeyHeader } from "../shape_schemas.ts";
import type { ErrorCode } from "../../domain/errors.ts";
import { RefundSchema, RefundStatusSchema } from "./schemas.ts";

const security = KEY_SECURITY;
const tags = ["Refunds"];

const REFUND_CODES: ErrorCode[] = [
  "VALIDATION_ERROR",
  "INVALID_AMOUNT",
  "INVALID_TRANSACTION_STATUS",
  "REFUND_WINDOW_EXPIRED",
  "REFUND_EXCEEDS_AMOUNT",
  "REFUND_RAIL_NOT_AVAILABLE",
  "INSUFFICIENT_BALANCE",
  "MISSING_IDEMPOTENCY_KEY",
  ...IDEMPOTENCY_CODES,
];

const RefundBody = z.strictObject({
  amount: z.string().max(40).optional().openapi({
    description: "in the pay-in's currency (XOF: whole francs; USDT: at most 6 decimals); absent: all that " +
      "is left to refund. More than is left: REFUND_EXCEEDS_AMOUNT",
    example: "2500",
  }),
  reason: z.string().min(1).max(500).optional().openapi({ example: "Order cancelled by the shop" }),
  restock: z.boolean().optional().openapi({
    description: "a paylink order's items go back to stock when the refund completes (once per order)",
  }),
}).openapi("CreateRefund");

const PayinIdParam = idParam("pay");
const IdParam = idParam("rfd");

const ListQuery = PageQuerySchema.extend({
  status: RefundStatusSchema.optional(),
  transactionId: z.string().max(40).optional().openapi({ description: "refunds of one pay-in" }),
  paymentMethod: z.enum(["CARD", "MOBILE_MONEY", "USDT_TRC20"]).optional(),
  createdFrom: z.string().datetime({ offset: true }).optional(),
  createdTo: z.string().datetime({ offset: true }).optional(),
});

export function refundRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "post",
      path: "/payments/{id}/refunds",
      operationId: "createRefund",
      tags,
      summary: "Refund a confirmed pay-in, fully or in part (reserved from the wallet at once)",
      description: "For CONFIRMED or OVERPAID card and mobile money pay-ins, within REFUND_WINDOW_DAYS of " +
        "payment. The amount leaves the wallet the pay-in credited at once (`refund.created`); the refund " +
        "waits for an operator (PENDING_APPROVAL), then is paid on the original rail (`refund.completed`) " +
        "or the money returns (`refund.rejected`, `refund.failed`).",
      security,
      middleware: [requireKey("refunds_write", "write")],
      request: {
        params: PayinIdParam,
        headers: z.object({ "idempotency-key": idempotencyKeyHeader(true) }),
        body: { required: true, content: { "application/json": { schema: RefundBody } } },
      },
      responses: {
        201: jsonContent(successSchema(RefundSchema), "Asked and reserved"),
        ...errorResponsesWith(REFUND_CODES),
      },
    }),
    async (c) => {
      const caller = c.get("auth");
      const body = c.req.valid("json");
      const payinId = c.req.valid("param").id;
      await assertOwnPayin(c.get("deps"), caller, payinId);
      assertIdempotencyKey(c, { required: true });
      // The reservation, the record, `refund.created` and the key's answer commit together.
      return untyped(
        await idempotentMoney(c, { required: true, status: 201 }, async (_tx, txDeps) =>
          refundView(
            await requestRefund(txDeps, caller, {
              payinId,
              ...body,
              idempotencyKey: c.req.header("idempotency-key"),
            }),
          )),
      );
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/refunds",
      operationId: "listRefunds",
      tags,
      summary: "List refunds, newest first",
      security,
      middleware: [requireKey("refunds_read", "read")],
      request: { query: ListQuery },
      responses: { 200: jsonContent(pagedSchema(RefundSchema), "Refunds"), ...errorResponses },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const { rows, total } = await listRefundsOf(c.get("deps"), c.get("auth"), {
        status: q.status,
        payinId: q.transactionId,
        paymentMethod: q.paymentMethod,
        createdFrom: q.createdFrom ? new Date(q.createdFrom) : undefined,
        createdTo: q.createdTo ? new Date(q.createdTo) : undefined,
        limit: q.limit,
        offset: (q.page - 1) * q.limit,
      });
      return ok(c, pageOf(rows.map(refundView), total, q));
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/refunds/{id}",
      operationId: "getRefund",
      tags,
      summary: "Retrieve a refund",
      security,
      middleware: [requireKey("refunds_read", "read")],
      request: { params: IdParam },
      responses: { 200: jsonContent(successSchema(RefundSchema), "The refund"), ...errorResponses },
    }),
    async (c) => ok(c, refundView(await getRefund(c.get("deps"), c.get("auth"), c.req.valid("param").id))),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/refunds/{id}/cancel",
      operationId: "cancelRefund",
      tags,
      summary: "Cancel a refund still waiting for approval (the reservation returns to the wallet)",
      description: "Approved, paid or closed refunds answer CANNOT_CANCEL.",
      security,
      middleware: [requireKey("refunds_write", "write")],
      request: { params: IdParam },
      responses: { 200: jsonContent(successSchema(RefundSchema), "Cancelled"), ...errorResponses },
    }),
    async (c) => ok(c, refundView(await cancelRefund(c.get("deps"), c.get("auth"), c.req.valid("param").id))),
  );
  return r;
}
