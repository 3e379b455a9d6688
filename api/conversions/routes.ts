// /v1/conversions: preview, convert between two of the merchant's wallets, list. Routes only validate,
// call domain/conversions and map the result; the conversion runs inside idempotentMoneyRoute, so its
// journal and the Idempotency-Key's answer commit together (the key is recommended, not required).
import { createRoute, z } from "@hono/zod-openapi";
import {
  conversionView,
  convertBetweenWallets,
  listConversionsOf,
  previewConversion,
  quoteView,
} from "../../domain/conversions/mod.ts";
import { newRouter } from "../router.ts";
import {
  errorResponses,
  errorResponsesWith,
  jsonContent,
  KEY_SECURITY,
  ok,
  pagedSchema,
  pageOf,
  PageQuerySchema,
  successSchema,
} from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";
import { idempotentMoneyRoute } from "../middleware/idempotency.ts";
import type { ErrorCode } from "../../domain/errors.ts";
import {
  IDEMPOTENCY_CODES,
  idempotencyKeyHeader,
  USDT_AMOUNT_PATTERN,
  USDT_OR_XOF_DESCRIPTION,
} from "../shape_schemas.ts";

const security = KEY_SECURITY;
const tags = ["Conversions"];
const CurrencyParam = z.string().min(1).max(20).regex(/^[A-Za-z][A-Za-z0-9_]*$/, "a currency code");
const WalletCurrency = z.enum(["USDT_TRC20", "XOF"]);
const Rail = z.enum(["TRC20", "MOMO", "CARD"]);

const PreviewQuery = z.object({
  fromCurrency: CurrencyParam.openapi({ example: "USDT_TRC20", description: "USDT_TRC20 (or USDT) or XOF" }),
  toCurrency: CurrencyParam.openapi({ example: "XOF" }),
  amount: z.string().min(1).max(40).openapi({
    example: "100",
    pattern: USDT_AMOUNT_PATTERN,
    description: `in fromCurrency, greater than zero; ${USDT_OR_XOF_DESCRIPTION}`,
  }),
});

const PreviewSchema = z.object({
  fromCurrency: WalletCurrency,
  toCurrency: WalletCurrency,
  fromAmount: z.string(),
  rate: z.string().openapi({
    description: "one fromCurrency is worth `rate` toCurrency",
    example: "603.48044",
  }),
  rateAsOf: z.string().openapi({ description: "when the market rate was observed (ISO 8601)" }),
  rateSource: z.string().openapi({ example: "fixed+peg" }),
  toAmountGross: z.string().openapi({ description: "fromAmount × rate, rounded down" }),
  feePercent: z.string().openapi({ example: "1" }),
  fee: z.string().openapi({ description: "in toCurrency, rounded up" }),
  toAmountNet: z.string().openapi({ description: "what the to-wallet would receive" }),
}).openapi("ConversionPreview");

const ConvertBody = z.strictObject({
  fromWalletId: z.string().min(1).max(64).openapi({ example: "wal_01J..." }),
  toWalletId: z.string().min(1).max(64).openapi({ example: "wal_01J..." }),
  fromAmount: z.string().min(1).max(40).openapi({
    example: "100",
    pattern: USDT_AMOUNT_PATTERN,
    description: `debited from fromWalletId, greater than zero; ${USDT_OR_XOF_DESCRIPTION}`,
  }),
}).openapi("CreateConversion");

export const ConversionSchema = z.object({
  id: z.string(),
  status: z.enum(["CONFIRMED", "FAILED"]),
  fromAmount: z.string(),
  fromCurrency: WalletCurrency,
  toAmountNet: z.string(),
  toCurrency: WalletCurrency,
  fromWalletId: z.string(),
  fromRail: Rail,
  toWalletId: z.string(),
  toRail: Rail,
  rate: z.string(),
  rateAsOf: z.string(),
  rateSource: z.string(),
  toAmountGross: z.string(),
  feePercent: z.string(),
  fee: z.string(),
  createdAt: z.string(),
  confirmedAt: z.string().nullable(),
}).openapi("Conversion");

/** Recommended, not required (the specification): a conversion without a key runs once, unprotected. */
const CONVERSION_KEY_REQUIRED = false;

/** What a conversion may answer besides a shape error: the pair, the wallets, the balance, the key. */
const CONVERSION_CODES: ErrorCode[] = [
  "VALIDATION_ERROR",
  "INVALID_AMOUNT",
  "INVALID_CONVERSION_PAIR",
  "CONVERSION_NOT_ALLOWED",
  "NEGATIVE_REVENUE",
  "WALLET_NOT_FOUND",
  "INSUFFICIENT_BALANCE",
  "KYB_REQUIRED",
  "DAILY_CONVERSION_COUNT_LIMIT",
  "DAILY_CONVERSION_LIMIT",
  ...IDEMPOTENCY_CODES,
];
const IdempotencyHeaders = z.object({ "idempotency-key": idempotencyKeyHeader(CONVERSION_KEY_REQUIRED) });

export function conversionRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/conversions/wallet/preview",
      operationId: "previewConversion",
      tags,
      summary: "Preview a conversion at the live rate: rate, fee and toAmountNet (nothing is reserved)",
      security,
      middleware: [requireKey("wallets_read", "read")],
      request: { query: PreviewQuery },
      responses: {
        200: jsonContent(successSchema(PreviewSchema), "The priced conversion"),
        ...errorResponses,
      },
    }),
    async (c) =>
      ok(c, quoteView(await previewConversion(c.get("deps"), c.get("auth"), c.req.valid("query")))),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/conversions/wallet",
      operationId: "createConversion",
      tags,
      summary: "Convert between two of the merchant's wallets of different currencies (one journal)",
      description:
        "Debits fromAmount from fromWalletId and credits toAmountNet to toWalletId at the live rate less " +
        "the conversion fee, atomically, and emits `conversion.confirmed`. Only spendable USDT converts.",
      security,
      middleware: [
        requireKey("wallets_write", "write"),
        idempotentMoneyRoute({ required: CONVERSION_KEY_REQUIRED }),
      ],
      request: {
        headers: IdempotencyHeaders,
        body: { required: true, content: { "application/json": { schema: ConvertBody } } },
      },
      responses: {
        201: jsonContent(successSchema(ConversionSchema), "Converted"),
        ...errorResponsesWith(CONVERSION_CODES),
      },
    }),
    async (c) => {
      const row = await convertBetweenWallets(c.get("deps"), c.get("auth"), c.req.valid("json"));
      return ok(c, conversionView(row), 201);
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/conversions",
      operationId: "listConversions",
      tags,
      summary: "List conversions, newest first",
      security,
      middleware: [requireKey("wallets_read", "list")],
      request: { query: PageQuerySchema },
      responses: { 200: jsonContent(pagedSchema(ConversionSchema), "Conversions"), ...errorResponses },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const { rows, total } = await listConversionsOf(c.get("deps"), c.get("auth"), q);
      return ok(c, pageOf(rows.map(conversionView), total, q));
    },
  );
  return r;
}
