// /v1/withdrawals: the merchant's own USDT to its whitelisted WITHDRAWAL address, always reviewed by an
// operator; cancel while it waits.
import { createRoute, z } from "@hono/zod-openapi";
import { getOutbound, listOutboundOf } from "../domain/money_out/queries.ts";
import { acceptOutbound, prepareWithdrawal } from "../domain/money_out/request.ts";
import { cancelWithdrawal } from "../domain/money_out/review.ts";
import { WITHDRAWAL_STATUSES } from "../domain/money_out/states.ts";
import { withdrawalView } from "../domain/money_out/view.ts";
import {
  acceptFiatWithdrawal,
  prepareFiatWithdrawal,
  withdrawalTarget,
} from "../domain/fiat_out/withdrawals.ts";
import { newRouter } from "./app.ts";
import { WaitingSchema } from "./money_out_schemas.ts";
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
import { assertIdempotencyKey, idempotentMoney } from "./middleware/idempotency.ts";

const security = KEY_SECURITY;
const tags = ["Withdrawals"];

const WithdrawalBody = z.strictObject({
  amount: z.string().max(40).openapi({
    example: "100",
    description: "debited from the wallet, in its currency (XOF: whole francs); the fee comes out of it",
  }),
  whitelistAddressId: z.string().max(64).optional().openapi({
    description: "USDT only; default: the primary address",
  }),
  currency: z.enum(["USDT_TRC20", "XOF"]).optional().openapi({
    description: "the wallet's currency; default USDT_TRC20",
  }),
  rail: z.enum(["TRC20", "MOMO", "CARD"]).optional().openapi({
    description: "the wallet's rail: required for XOF (MOMO or CARD wallet); TRC20 for USDT",
  }),
  fiatDestinationId: z.string().max(64).optional().openapi({
    description: "XOF only; default: the primary fiat destination",
  }),
}).openapi("CreateWithdrawal");

const WithdrawalSchema = z.object({
  id: z.string(),
  amount: z.string(),
  fee: z.string(),
  netAmount: z.string(),
  destinationAddress: z.string(),
  status: z.enum(WITHDRAWAL_STATUSES),
  createdAt: z.string(),
  currency: z.enum(["USDT_TRC20", "XOF"]),
  rail: z.enum(["TRC20", "MOMO", "CARD"]).openapi({ description: "the wallet the money left" }),
  chain: z.enum(["TRON", "MOMO", "BANK"]).openapi({ description: "how it is paid out" }),
  fiatDestinationId: z.string().nullable(),
  providerRef: z.string().nullable().openapi({ description: "XOF: the provider's or bank's reference" }),
  waiting: WaitingSchema,
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
      summary: "Request a USDT or XOF withdrawal (waits in PENDING_REVIEW for an operator)",
      description: "USDT: `{amount, whitelistAddressId?}` to a whitelisted TRON address. XOF: " +
        '`{amount, currency: "XOF", rail: "MOMO" | "CARD", fiatDestinationId?}` from that XOF wallet ' +
        "to a fiat destination (FIAT_DESTINATION_REQUIRED when none is registered).",
      security,
      middleware: [requireKey("withdrawals_write", "write")],
      request: { body: { required: true, content: { "application/json": { schema: WithdrawalBody } } } },
      responses: {
        201: jsonContent(successSchema(WithdrawalSchema), "Requested and reserved"),
        ...errorResponses,
      },
    }),
    async (c) => {
      assertIdempotencyKey(c, { required: true });
      const caller = c.get("auth");
      const body = c.req.valid("json");
      const target = withdrawalTarget(body);
      if (target.currency === "XOF") {
        const fiat = await prepareFiatWithdrawal(c.get("deps"), caller, target);
        return untyped(
          await idempotentMoney(
            c,
            { required: true, status: 201 },
            async (_tx, txDeps) => withdrawalView(await acceptFiatWithdrawal(txDeps, caller, fiat)),
          ),
        );
      }
      const prepared = await prepareWithdrawal(c.get("deps"), caller, target);
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
