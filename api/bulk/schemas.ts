// zod schemas of the bulk payment routes (api/bulk/routes.ts): request bodies, answers, the codes each may answer.
import { z } from "@hono/zod-openapi";
import { BULK_RAILS, DEFAULT_BULK_RAIL, MAX_ITEMS_PER_BATCH } from "../../domain/bulk/items.ts";
import { BATCH_STATUSES, ITEM_STATUSES } from "../../domain/bulk/states.ts";
import { idParam, KEY_SECURITY } from "../envelope.ts";
import type { ErrorCode } from "../../domain/errors.ts";
import { BULK_RECIPIENT_PATTERN, IDEMPOTENCY_CODES, USDT_AMOUNT_PATTERN } from "../shape_schemas.ts";

/** Execute and retry honour an Idempotency-Key without requiring one. */
export const BULK_RUN_KEY_REQUIRED = false;

/** What execute and retry may answer: the batch's state, verification, the whitelist, the balance. */
export const BULK_RUN_CODES: ErrorCode[] = [
  "INVALID_TRANSACTION_STATUS",
  "BAD_REQUEST",
  "KYB_REQUIRED",
  "ADDRESS_NOT_WHITELISTED",
  "INSUFFICIENT_BALANCE",
  "WALLET_NOT_FOUND",
  ...IDEMPOTENCY_CODES,
];

export const security = KEY_SECURITY;
export const tags = ["Bulk payments"];
export const IdParam = idParam("blk");

export const Rail = z.enum(BULK_RAILS).openapi({
  description: "USDT_TRC20: USDT on TRON to whitelisted addresses; MOBILE_MONEY: XOF to Burkina Faso numbers",
});
/** Optional where it is chosen, without an OpenAPI `default` (generated clients would then require it). */
export const ChosenRail = Rail.optional().openapi({
  description:
    `USDT_TRC20: USDT on TRON to whitelisted addresses; MOBILE_MONEY: XOF to Burkina Faso numbers. ` +
    `${DEFAULT_BULK_RAIL} when absent`,
});

export const CreateBody = z.strictObject({
  rail: ChosenRail,
  label: z.string().max(100).optional(),
}).openapi("CreateBulkPayment");

export const ItemBody = z.strictObject({
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

export const ItemsBody = z.strictObject({
  items: z.array(ItemBody).min(1).refine((items) => items.length <= MAX_ITEMS_PER_BATCH, {
    message: `at most ${MAX_ITEMS_PER_BATCH} items a batch`,
    params: { refusedAs: "LIMIT_EXCEEDED_BULK_BATCH" },
    when: (payload) => Array.isArray(payload.value),
  }).openapi({ description: "at least one item, at most 1,000 a batch", maxItems: MAX_ITEMS_PER_BATCH }),
}).openapi("AddBulkItems");

export const Counts = z.object({
  pending: z.number().int(),
  queued: z.number().int(),
  processing: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  cancelled: z.number().int(),
});

export const BatchFields = {
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

export const ItemSchema = z.object({
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

export const BalanceCheck = z.union([
  z.object({ sufficient: z.boolean(), required: z.string(), available: z.string() }),
  z.object({ sandbox: z.literal(true), skipped: z.literal(true), required: z.string() }),
]);
export const ValidateSchema = z.object({ ...BatchFields, balanceCheck: BalanceCheck }).openapi(
  "BulkPaymentValidation",
);

export const TemplateQuery = z.object({
  rail: ChosenRail,
  format: z.enum(["xlsx", "csv"]).default("xlsx"),
});
