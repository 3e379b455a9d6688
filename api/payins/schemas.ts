// The pay-in's answers as OpenAPI declares them: the USDT, card and mobile money creation answers, the
// record, and the creation routes' flags (the request bodies stay beside the routes in api/payins/routes.ts).
import { z } from "@hono/zod-openapi";
import { PAYIN_STATUSES } from "../../domain/payins/states.ts";
import { idempotencyKeyHeader } from "../shape_schemas.ts";

const expiresAt = z.string().openapi({ example: "2026-01-01T12:30:00.000Z" });

export const CardCreatedSchema = z.object({
  transactionId: z.string(),
  paymentMethod: z.literal("CARD"),
  hostedPaymentUrl: z.string().openapi({ description: "Send the customer here to enter the card" }),
  amount: z.string().openapi({ example: "5000" }),
  currency: z.literal("XOF"),
  status: z.enum(PAYIN_STATUSES),
  expiresAt,
}).openapi("CardPayinCreated");

export const MobileMoneyCreatedSchema = z.object({
  transactionId: z.string(),
  paymentMethod: z.literal("MOBILE_MONEY"),
  hostedPaymentUrl: z.string(),
  nextStep: z.enum(["otp", "approval"]).openapi({
    description: "otp: submit the customer's code; approval: the customer approves on the phone",
  }),
  operatorCode: z.string(),
  instruction: z.object({ fr: z.string(), en: z.string() }),
  amount: z.string().openapi({ example: "5000" }),
  currency: z.literal("XOF"),
  status: z.enum(PAYIN_STATUSES),
  expiresAt,
}).openapi("MobileMoneyPayinCreated");

/** The sandbox flag of creation routes; the same as the `x-sandbox` header. */
export const SandboxQuery = z.object({
  sandbox: z.string().max(16).optional().openapi({
    description: "`true` creates a sandbox pay-in (needs a sandbox key); same as the x-sandbox header",
  }),
});

export const CreationHeaders = z.object({
  "idempotency-key": idempotencyKeyHeader(false),
  "x-sandbox": z.string().optional().openapi({ description: "`true`: same as the sandbox query flag" }),
});

export const UsdtCreatedSchema = z.object({
  transactionId: z.string(),
  address: z.string(),
  paymentUrl: z.string(),
  qrCodeUrl: z.string(),
  amount: z.string(),
  amountExpected: z.string(),
  networkFee: z.string(),
  currency: z.literal("USDT_TRC20"),
  chain: z.literal("TRON"),
  status: z.enum(PAYIN_STATUSES),
  expiresAt: z.string(),
}).openapi("UsdtPayinCreated");

/** GET /v1/payments/:id and the list: the record (a publishable key reads it without the merchant's data). */
export const PayinSchema = z.object({
  id: z.string(),
  address: z.string().nullable(),
  amount: z.string(),
  amountReceived: z.string(),
  serviceFee: z.string().optional().openapi({ description: "absent when read with a publishable key" }),
  refundedAmount: z.string().optional().openapi({
    description:
      "what completed refunds gave back to the customer, in the pay-in's currency (refunds still " +
      "waiting or on their way are not counted); absent when read with a publishable key",
    example: "0",
  }),
  disputed: z.boolean().optional().openapi({
    description: "a dispute was opened on this pay-in, whatever its outcome (GET /v1/disputes says which); " +
      "absent when read with a publishable key",
  }),
  status: z.enum(PAYIN_STATUSES),
  txHash: z.string().nullable(),
  externalRef: z.string().nullable().optional().openapi({
    description: "absent when read with a publishable key (browser checkouts see no merchant data)",
  }),
  currency: z.string(),
  chain: z.string().nullable(),
  paymentUrl: z.string(),
  isSandbox: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  paymentMethod: z.enum(["USDT_TRC20", "CARD", "MOBILE_MONEY"]),
  hostedPaymentUrl: z.string().nullable().optional().openapi({ description: "card and mobile money only" }),
  nextStep: z.enum(["otp", "approval", "redirect"]).nullable().optional().openapi({
    description: "card and mobile money only",
  }),
  operatorCode: z.string().nullable().optional().openapi({ description: "card and mobile money only" }),
  pricingCurrency: z.string().nullable().optional().openapi({
    description: "the currency it was priced in (a paylink); absent on a USDT pay-in priced in USDT",
  }),
  pricingAmount: z.string().nullable().optional(),
  fxRate: z.string().nullable().optional().openapi({ description: "pricing currency to `currency`" }),
  amountExpected: z.string(),
  networkFee: z.string(),
  netAmount: z.string().optional().openapi({ description: "absent when read with a publishable key" }),
  expiresAt: z.string(),
  confirmedAt: z.string().nullable(),
  failureReason: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).optional().openapi({
    description: "absent when read with a publishable key",
  }),
}).openapi("Payin");
