// /v1/withdrawals: the merchant's own USDT to its whitelisted WITHDRAWAL address, always reviewed by an
// operator; cancel while it waits.
import { createRoute, z } from "@hono/zod-openapi";
import { getOutbound, listOutboundOf } from "../domain/money_out/queries.ts";
import { acceptOutbound, prepareWithdrawal } from "../domain/money_out/request.ts";
import { cancelWithdrawal } from "../domain/money_out/review.ts";
import { WITHDRAWAL_STATUSES } from "../domain/money_out/states.ts";
import { withdrawalView } from "../domain/money_out/view.ts";
import { newRouter } from "./app.ts";
import {
  errorResponses,
  idParam,
  jsonContent,
  KEY_SECURITY,
  ok,
  pagedSchema,
  pageOf,
  PageQuerySchema,
  successSchema,
  untyped,
} from "./envelope.ts";
import { requireKey } from "./middleware/auth.ts";
import { idempotentMoney } from "./middleware/idempotency.ts";

const security = KEY_SECURITY;
const tags = ["Withdrawals"];

const WithdrawalBody = z.strictObject({
  amount: z.string().max(40).openapi({
    example: "100",
    description: "USDT debited; the fee comes out of it",
  }),
  whitelistAddressId: z.string().max(64).optional().openapi({ description: "default: the primary address" }),
}).openapi("CreateWithdrawal");

const WithdrawalSchema = z.object({
  id: z.string(),
  amount: z.string(),
  fee: z.string(),
  netAmount: z.string(),
  destinationAddress: z.string(),
  status: z.enum(WITHDRAWAL_STATUSES),
  createdAt: z.string(),
}).passthrough().openapi("Withdrawal");

const IdParam = idParam("wdr");

export function withdrawalRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "post",
      path: "/withdrawals",
      operationId: "createWithdrawal",
      tags,
      summary: "Request a withdrawal (waits in PENDING_REVIEW for an operator)",
      security,
      middleware: [requireKey("withdrawals_write", "write")],
      request: { body: { required: true, content: { "application/json": { schema: WithdrawalBody } } } },
      responses: {
        201: jsonContent(successSchema(WithdrawalSchema), "Requested and reserved"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const caller = c.get("auth");
      const prepared = await prepareWithdrawal(c.get("deps"), caller, c.req.valid("json"));
      return untyped(
        await idempotentMoney(
          c,
          { required: true, status: 201 },
          async (_tx, txDeps) => withdrawalView(await acceptOutbound(txDeps, caller, prepared)),
        ),
      );
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/withdrawals",
      operationId: "listWithdrawals",
      tags,
      summary: "List withdrawals, newest first",
      security,
      middleware: [requireKey("withdrawals_read", "read")],
      request: { query: PageQuerySchema.extend({ status: z.enum(WITHDRAWAL_STATUSES).optional() }) },
      responses: { 200: jsonContent(pagedSchema(WithdrawalSchema), "Withdrawals"), ...errorResponses },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const { rows, total } = await listOutboundOf(c.get("deps"), c.get("auth"), "WITHDRAWAL", q);
      return ok(c, pageOf(rows.map(withdrawalView), total, q));
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/withdrawals/{id}",
      operationId: "getWithdrawal",
      tags,
      summary: "Retrieve a withdrawal",
      security,
      middleware: [requireKey("withdrawals_read", "read")],
      request: { params: IdParam },
      responses: { 200: jsonContent(successSchema(WithdrawalSchema), "The withdrawal"), ...errorResponses },
    }),
    async (c) =>
      ok(
        c,
        withdrawalView(
          await getOutbound(c.get("deps"), c.get("auth"), "WITHDRAWAL", c.req.valid("param").id),
        ),
      ),
  );

  r.openapi(
    createRoute({
      method: "delete",
      path: "/withdrawals/{id}",
      operationId: "cancelWithdrawal",
      tags,
      summary: "Cancel a withdrawal while PENDING_REVIEW (the money returns at once)",
      security,
      middleware: [requireKey("withdrawals_write", "write")],
      request: { params: IdParam },
      responses: { 200: jsonContent(successSchema(WithdrawalSchema), "Cancelled"), ...errorResponses },
    }),
    async (c) => {
      const caller = c.get("auth");
      const { id } = c.req.valid("param");
      await getOutbound(c.get("deps"), caller, "WITHDRAWAL", id);
      return ok(c, withdrawalView(await cancelWithdrawal(c.get("deps"), { ...caller, id })));
    },
  );
  return r;
}
