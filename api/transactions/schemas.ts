// zod schemas of the transaction history and its exports: the query, the unified record, the page.
import { z } from "@hono/zod-openapi";
import { ID_ALPHABET, ID_BODY_LENGTH } from "../../domain/ids.ts";
import {
  encodeCursor,
  isTransactionId,
  SEARCH_MAX,
  SEARCH_MIN,
  TRANSACTION_CURRENCIES,
  TRANSACTION_ID_PREFIXES,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
} from "../../domain/transactions/query.ts";
import { EXPORT_STATUSES } from "../../domain/exports/jobs.ts";
import { successSchema } from "../envelope.ts";

const DATE_DESCRIPTION = "ISO 8601: a date (2025-01-31, the whole day) or a date-time with a zone " +
  "(2025-01-31T12:00:00.000Z)";

const DateParam = z.string().max(40).openapi({
  description: DATE_DESCRIPTION,
  example: "2025-01-31",
  pattern: "^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$",
});

/** An unknown `type` answers the catalogue's INVALID_TRANSACTION_TYPE, not a generic validation error. */
const TypeParam = z.string().refine((v) => (TRANSACTION_TYPES as readonly string[]).includes(v), {
  message: `type must be one of ${TRANSACTION_TYPES.join(", ")}`,
  params: { refusedAs: "INVALID_TRANSACTION_TYPE" },
}).openapi({ enum: [...TRANSACTION_TYPES], description: "the kind of record", example: "PAYIN" });

/** Unknown parameters are refused (a misspelt filter must not silently list everything). */
export const TransactionListQuery = z.strictObject({
  type: TypeParam.optional(),
  status: z.enum(TRANSACTION_STATUSES).optional(),
  currency: z.enum(TRANSACTION_CURRENCIES).optional(),
  from: DateParam.optional().openapi({ description: `inclusive; ${DATE_DESCRIPTION}` }),
  to: DateParam.optional().openapi({ description: `inclusive; ${DATE_DESCRIPTION}` }),
  search: z.string().min(SEARCH_MIN).max(SEARCH_MAX).optional().openapi({
    description: `${SEARCH_MIN} to ${SEARCH_MAX} characters matched literally and case-insensitively ` +
      "anywhere in the customer's e-mail, name or phone, the externalRef, the merchant's note " +
      "(metadata.note), or a bulk item's recipient, reference or mobile money number",
    example: "awa@example.com",
  }),
  page: z.coerce.number().int().min(1).optional().openapi({
    description: "offset pages (default 1) reach the first 10,000 rows; go further with `cursor`",
    example: 1,
  }),
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ example: 20 }),
  cursor: z.string().max(200).optional().openapi({
    description: "meta.nextCursor of the previous page (keyset paging, any depth); not with a `page` past 1",
    example: encodeCursor({
      createdAt: new Date("2026-01-31T12:00:00.000Z"),
      id: `pay_01k${"0".repeat(23)}`,
    }),
  }),
});

export const ExportQuery = z.strictObject({
  from: DateParam.openapi({ description: `inclusive, required; ${DATE_DESCRIPTION}` }),
  to: DateParam.openapi({ description: `inclusive, required; ${DATE_DESCRIPTION}` }),
  form: z.enum(["transactions", "balance_statement"]).optional().openapi({
    description:
      "`transactions` (the default): one row per transaction. `balance_statement`: per currency an " +
      "OPENING_BALANCE row, every change of the wallets (pay-in credit, fee, payout, withdrawal, refund, " +
      "conversion leg, bulk item, other) with the balance after it, and a CLOSING_BALANCE row equal to the ledger's",
  }),
  currency: z.enum(TRANSACTION_CURRENCIES).optional().openapi({
    description: "`balance_statement` only: one currency's wallets (default: every currency)",
  }),
});

const Amount = z.string().openapi({ description: "exact decimal string", example: "25.000000" });
const NullableText = z.string().nullable();

export const TransactionSchema = z.object({
  id: z.string().openapi({ example: "pay_01k0000000000000000000000a" }),
  type: z.enum(TRANSACTION_TYPES),
  status: z.enum(TRANSACTION_STATUSES),
  paymentMethod: z.enum(["USDT_TRC20", "CARD", "MOBILE_MONEY", "BANK"]).nullable().openapi({
    description: "how the money moved; null for a conversion (wallet to wallet)",
  }),
  walletRail: z.enum(["TRC20", "MOMO", "CARD"]).openapi({ description: "the merchant wallet it moved" }),
  currency: z.enum(TRANSACTION_CURRENCIES),
  amount: Amount,
  amountReceived: Amount.nullable().openapi({ description: "pay-ins: what arrived" }),
  fee: Amount,
  feeCurrency: z.enum(TRANSACTION_CURRENCIES),
  netAmount: Amount.openapi({
    description: "pay-in: credited to the wallet; payout, withdrawal, bulk item: what the recipient gets; " +
      "conversion: what left the from-wallet; refund: what goes back to the customer (type REFUND, id rfd_, " +
      "the refund's status; fee 0); dispute: the disputed amount (type DISPUTE, id dsp_, the dispute's " +
      "status, note its reason; fee 0)",
  }),
  toCurrency: z.enum(TRANSACTION_CURRENCIES).nullable(),
  toWalletRail: z.enum(["TRC20", "MOMO", "CARD"]).nullable(),
  toAmount: Amount.nullable().openapi({ description: "conversion: credited to the to-wallet, fee deducted" }),
  externalRef: NullableText,
  customerName: NullableText,
  customerEmail: NullableText,
  customerPhone: NullableText,
  recipientName: NullableText,
  destination: NullableText.openapi({
    description: "deposit address (USDT pay-in), destination address or number (money out)",
  }),
  note: NullableText.openapi({ description: "the merchant's note: metadata.note when it is text" }),
  txHash: NullableText,
  batchId: NullableText,
  failureReason: NullableText,
  isSandbox: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("Transaction");

export const TransactionPageSchema = successSchema(z.object({
  items: z.array(TransactionSchema),
  meta: z.object({
    page: z.number().int().nullable().openapi({ description: "null when paging by cursor" }),
    limit: z.number().int(),
    total: z.number().int().openapi({ description: "matching rows, counted up to 1,000" }),
    totalExact: z.boolean().openapi({
      description: "false: more than 1,000 rows match (total and totalPages are then lower bounds)",
    }),
    totalPages: z.number().int(),
    hasNext: z.boolean(),
    hasPrev: z.boolean(),
    nextCursor: z.string().nullable().openapi({ description: "pass as `cursor` for the next page" }),
  }),
})).openapi("TransactionPage");

/** Any id the history holds: a pay-in, payout, withdrawal, conversion, bulk item or deposit; else NOT_FOUND. */
export const TransactionIdParam = z.object({
  id: z.string().refine(isTransactionId, {
    message: "not a transaction id",
    params: { notFound: "NOT_FOUND" },
  }).openapi({
    param: { name: "id", in: "path" },
    pattern: `^(${TRANSACTION_ID_PREFIXES.join("|")})_[${ID_ALPHABET}]{${ID_BODY_LENGTH}}$`,
    example: `pay_01k${"0".repeat(ID_BODY_LENGTH - 3)}`,
  }),
});

export const ExportStartedSchema = successSchema(z.object({
  jobId: z.string().openapi({ example: `exp_01k${"0".repeat(ID_BODY_LENGTH - 3)}` }),
  status: z.enum(EXPORT_STATUSES),
})).openapi("ExportStarted");
