// /v1/withdrawals: the merchant's own USDT to its whitelisted WITHDRAWAL address, always reviewed by an
// operator; cancel while it waits.
import { createRoute, z } from "@hono/zod-openapi";
import { getOutbound, listOutboundOf } from "../../domain/money_out/queries.ts";
import { acceptOutbound, prepareWithdrawal } from "../../domain/money_out/request.ts";
import { cancelWithdrawal } from "../../domain/money_out/review.ts";
import { WITHDRAWAL_STATUSES } from "../../domain/money_out/states.ts";
import { withdrawalView } from "../../domain/money_out/view.ts";
import {
  acceptFiatWithdrawal,
  prepareFiatWithdrawal,
  withdrawalTarget,
} from "../../domain/fiat_out/withdrawals.ts";
import { newRouter } from "../router.ts";
import { WaitingSchema } from "./schemas.ts";
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
import { IDEMPOTENCY_CODES, idempotencyKeyHeader, UsdtAmount, XofAmount } from "../shape_schemas.ts";
import type { ErrorCode } from "../../domain/errors.ts";

const security = KEY_SECURITY;
const tags = ["Withdrawals"];

// Unnamed for the reason UsdtPaymentBody is (api/payins/routes.ts): currency may be absent.
const UsdtWithdrawalBody = z.strictObject({
  currency: z.literal("USDT_TRC20").optional().openapi({ description: "absent: USDT_TRC20" }),
  amount: UsdtAmount.openapi({
    example: "100",
    description: "debited from the USDT wallet; the fee comes out of it",
  }),
  whitelistAddressId: z.string().max(64).optional().openapi({
    description: "default: the primary WITHDRAWAL address",
  }),
  rail: z.literal("TRC20").optional().openapi({ description: "the USDT wallet's rail" }),
});

const XofWithdrawalBody = z.strictObject({
  currency: z.literal("XOF"),
  amount: XofAmount.openapi({
    description: "debited from the XOF wallet, whole francs; the fee comes out of it",
  }),
  rail: z.enum(["MOMO", "CARD"]).openapi({ description: "the XOF wallet the money leaves" }),
  fiatDestinationId: z.string().max(64).optional().openapi({
    description: "default: the primary fiat destination",
  }),
}).openapi("CreateXofWithdrawal");

const WithdrawalBody = z.discriminatedUnion("currency", [UsdtWithdrawalBody, XofWithdrawalBody])
  .openapi("CreateWithdrawal", { description: "One body per wallet currency (absent: USDT_TRC20)" });

/** A withdrawal moves money: the Idempotency-Key is required (the spec: `POST /v1/withdrawals` takes one). */
const WITHDRAWAL_KEY_REQUIRED = true;

/** What a withdrawal may answer besides a shape error: destinations, screening, balance, the key. */
const WITHDRAWAL_CODES: ErrorCode[] = [
  "VALIDATION_ERROR",
  "INVALID_AMOUNT",
  "AMOUNT_TOO_SMALL",
  "ADDRESS_NOT_WHITELISTED",
  "ADDRESS_COOLDOWN",
  "AML_BLOCKED",
  "AML_SCREENING_UNAVAILABLE",
  "KYB_REQUIRED",
  "MERCHANT_LIMIT_EXCEEDED",
  "DAILY_CAP_EXCEEDED",
  "MONTHLY_LIMIT_EXCEEDED",
  "NO_WHITELISTED_ADDRESS",
  "FIAT_DESTINATION_REQUIRED",
  "FIAT_DESTINATION_NOT_FOUND",
  "BENEFICIARY_COOLDOWN",
  "INSUFFICIENT_BALANCE",
  "MISSING_IDEMPOTENCY_KEY",
  ...IDEMPOTENCY_CODES,
];

export const WithdrawalSchema = z.object({
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
  whitelistAddressId: z.string().nullable(),
  txHash: z.string().nullable(),
  failureReason: z.string().nullable(),
  isSandbox: z.boolean(),
  updatedAt: z.string(),
  approvedAt: z.string().nullable(),
  confirmedAt: z.string().nullable(),
  failedAt: z.string().nullable(),
  cancelledAt: z.string().nullable(),
}).openapi("Withdrawal");

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
      request: {
        headers: z.object({ "idempotency-key": idempotencyKeyHeader(WITHDRAWAL_KEY_REQUIRED) }),
        body: { required: true, content: { "application/json": { schema: WithdrawalBody } } },
      },
      responses: {
        201: jsonContent(successSchema(WithdrawalSchema), "Requested and reserved"),
        ...errorResponsesWith(WITHDRAWAL_CODES),
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
            { required: WITHDRAWAL_KEY_REQUIRED, status: 201 },
            async (_tx, txDeps) => withdrawalView(await acceptFiatWithdrawal(txDeps, caller, fiat)),
          ),
        );
      }
      const prepared = await prepareWithdrawal(c.get("deps"), caller, target);
      return untyped(
        await idempotentMoney(
          c,
          { required: WITHDRAWAL_KEY_REQUIRED, status: 201 },
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
