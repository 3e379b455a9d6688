// The creation answers of card and mobile money pay-ins and the creation routes' flags, as OpenAPI
// declares them (the USDT answer and the request body stay beside the routes in api/payins/routes.ts).
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
