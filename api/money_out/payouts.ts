// /v1/payout (and its canonical name /v1/transfers): USDT to a whitelisted address, reserved at once,
// sent exactly once by the broadcaster; plus the fee estimate, retrieve and list.
import { createRoute, z } from "@hono/zod-openapi";
import { getOutbound, listOutboundOf } from "../../domain/money_out/queries.ts";
import { acceptOutbound, estimatePayout, preparePayout } from "../../domain/money_out/request.ts";
import { PAYOUT_STATUSES } from "../../domain/money_out/states.ts";
import { payoutView } from "../../domain/money_out/view.ts";
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
import { IDEMPOTENCY_CODES, idempotencyKeyHeader, TronAddress, UsdtAmount } from "../shape_schemas.ts";
import type { ErrorCode } from "../../domain/errors.ts";

/** A payout moves money: the Idempotency-Key is required (the spec: `POST /v1/payout` takes one). */
const PAYOUT_KEY_REQUIRED = true;

/** What a payout may answer besides a shape error: the whitelist, screening, balance and the key. */
const ESTIMATE_CODES: ErrorCode[] = [
  "VALIDATION_ERROR",
  "INVALID_AMOUNT",
  "AMOUNT_TOO_SMALL",
  "ADDRESS_NOT_WHITELISTED",
  "ADDRESS_COOLDOWN",
  "AML_BLOCKED",
  "AML_SCREENING_UNAVAILABLE",
  "INVALID_ADDRESS",
];
const PAYOUT_CODES: ErrorCode[] = [
  ...ESTIMATE_CODES,
  "KYB_REQUIRED",
  "MERCHANT_LIMIT_EXCEEDED",
  "DAILY_CAP_EXCEEDED",
  "MONTHLY_LIMIT_EXCEEDED",
  "INSUFFICIENT_BALANCE",
  "DUPLICATE_EXTERNAL_REF",
  "MISSING_IDEMPOTENCY_KEY",
  ...IDEMPOTENCY_CODES,
];

const security = KEY_SECURITY;
const tags = ["Payouts"];

const PayoutBody = z.strictObject({
  amount: UsdtAmount.openapi({ description: "USDT, at most 6 decimals (INVALID_AMOUNT); minimum 5" }),
  destinationAddress: TronAddress.openapi({
    description: "whitelisted for PAYOUT; malformed or a bad checksum: INVALID_ADDRESS",
  }),
  currency: z.literal("USDT_TRC20").optional(),
  chain: z.literal("TRON").optional(),
  externalRef: z.string().min(1).max(128).optional(),
  metadata: z.record(z.string().max(64), z.unknown()).optional()
    .refine(
      (m) => m === undefined || JSON.stringify(m).length <= 8192,
      "metadata must be at most 8 KB of JSON",
    ),
}).openapi("CreatePayout");

const EstimateBody = PayoutBody.omit({ externalRef: true, metadata: true }).openapi("EstimatePayout");

export const PayoutSchema = z.object({
  transactionId: z.string(),
  status: z.enum(PAYOUT_STATUSES),
  processingFee: z.string(),
  requiresManualApproval: z.boolean(),
  currentPayinFee: z.string(),
  currentTier: z.string(),
  waiting: WaitingSchema,
  amount: z.string(),
  totalDebited: z.string().openapi({ description: "amount plus processingFee, reserved at acceptance" }),
  destinationAddress: z.string(),
  currency: z.string(),
  chain: z.string(),
  externalRef: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  txHash: z.string().nullable(),
  failureReason: z.string().nullable(),
  isSandbox: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  approvedAt: z.string().nullable(),
  broadcastAt: z.string().nullable(),
  confirmedAt: z.string().nullable(),
  failedAt: z.string().nullable(),
  cancelledAt: z.string().nullable(),
}).openapi("Payout");

const IdParam = idParam("pout");

export function payoutRoutes() {
  const r = newRouter();

  for (const path of ["/payout", "/transfers"]) {
    r.openapi(
      createRoute({
        method: "post",
        path,
        operationId: path === "/payout" ? "createPayout" : "createTransfer",
        tags,
        summary: path === "/payout"
          ? "Create a payout (kept for existing callers; /v1/transfers is the canonical name)"
          : "Create a payout to a whitelisted TRON address",
        security,
        middleware: [requireKey("payouts_write", "write")],
        request: {
          headers: z.object({ "idempotency-key": idempotencyKeyHeader(PAYOUT_KEY_REQUIRED) }),
          body: { required: true, content: { "application/json": { schema: PayoutBody } } },
        },
        responses: {
          201: jsonContent(successSchema(PayoutSchema), "Accepted and reserved"),
          ...errorResponsesWith(PAYOUT_CODES),
        },
      }),
      async (c) => {
        assertIdempotencyKey(c, { required: true });
        const caller = c.get("auth");
        const prepared = await preparePayout(c.get("deps"), caller, c.req.valid("json"));
        // The reservation and the key's answer commit together: no crash can make a retry pay twice.
        return untyped(
          await idempotentMoney(
            c,
            { required: PAYOUT_KEY_REQUIRED, status: 201 },
            async (_tx, txDeps) =>
              payoutView(await acceptOutbound(txDeps, caller, prepared), caller.feeSchedule),
          ),
        );
      },
    );
  }

  r.openapi(
    createRoute({
      method: "post",
      path: "/payout/estimate",
      operationId: "estimatePayout",
      tags,
      summary: "Fee preview: fee, total debited, spendable balance, and whether it suffices",
      security,
      middleware: [requireKey("payouts_read", "read")],
      request: { body: { required: true, content: { "application/json": { schema: EstimateBody } } } },
      responses: {
        200: jsonContent(
          successSchema(z.object({
            fee: z.string(),
            totalDebited: z.string(),
            availableBalance: z.string(),
            sufficient: z.boolean(),
          })),
          "Estimate; nothing is reserved",
        ),
        ...errorResponsesWith(ESTIMATE_CODES),
      },
    }),
    async (c) => ok(c, await estimatePayout(c.get("deps"), c.get("auth"), c.req.valid("json"))),
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/payout/{id}",
      operationId: "getPayout",
      tags,
      summary: "Retrieve a payout",
      security,
      middleware: [requireKey("payouts_read", "read")],
      request: { params: IdParam },
      responses: { 200: jsonContent(successSchema(PayoutSchema), "The payout"), ...errorResponses },
    }),
    async (c) => {
      const caller = c.get("auth");
      const row = await getOutbound(c.get("deps"), caller, "PAYOUT", c.req.valid("param").id);
      return ok(c, payoutView(row, caller.feeSchedule));
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/payout",
      operationId: "listPayouts",
      tags,
      summary: "List payouts, newest first",
      security,
      middleware: [requireKey("payouts_read", "read")],
      request: { query: PageQuerySchema.extend({ status: z.enum(PAYOUT_STATUSES).optional() }) },
      responses: { 200: jsonContent(pagedSchema(PayoutSchema), "Payouts"), ...errorResponses },
    }),
    async (c) => {
      const caller = c.get("auth");
      const q = c.req.valid("query");
      const { rows, total } = await listOutboundOf(c.get("deps"), caller, "PAYOUT", q);
      return ok(c, pageOf(rows.map((row) => payoutView(row, caller.feeSchedule)), total, q));
    },
  );
  return r;
}
