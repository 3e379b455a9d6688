// The refund record (domain/refunds/view.ts refundView) and the data of refund.* events
// (refundEventData), as the OpenAPI document declares them.
import { z } from "@hono/zod-openapi";
import { REFUND_STATUSES } from "../../domain/refunds/states.ts";

export const RefundStatusSchema = z.enum(REFUND_STATUSES).openapi({
  description:
    "PENDING_APPROVAL (waits for an operator) -> APPROVED -> SENDING / PROCESSING (on the rail) -> " +
    "COMPLETED; or REJECTED, CANCELLED (before approval) and FAILED (the rail refused): the money is back. " +
    "USDT: APPROVED until the customer gives an address on the hosted page, then PROCESSING until the " +
    "transfer has its confirmations",
});

const nullableText = z.string().nullable();

export const RefundSchema = z.object({
  refundId: z.string(),
  transactionId: z.string().openapi({ description: "the refunded pay-in" }),
  status: RefundStatusSchema,
  amount: z.string(),
  currency: z.enum(["USDT_TRC20", "XOF"]),
  paymentMethod: z.enum(["USDT_TRC20", "CARD", "MOBILE_MONEY"]),
  reason: nullableText,
  restock: z.boolean(),
  autoApproved: z.boolean().openapi({ description: "below the merchant's auto-approval threshold" }),
  reviewNote: nullableText,
  providerRef: nullableText.openapi({
    description: "the acquirer's or aggregator's reference of the refund",
  }),
  failureReason: nullableText,
  isSandbox: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  approvedAt: nullableText,
  completedAt: nullableText,
  failedAt: nullableText,
  rejectedAt: nullableText,
  cancelledAt: nullableText,
  customerPageUrl: nullableText.openapi({
    description:
      "USDT: the signed hosted page (HMAC, expiring) where the customer gives the TRON address to " +
      "refund to; the merchant sends it to the customer. Null until the refund is approved, and for other rails",
  }),
  customerPageExpiresAt: nullableText.openapi({ description: "USDT: when customerPageUrl stops working" }),
  destinationAddress: nullableText.openapi({
    description: "USDT: the address the customer gave (set once; the refund is then PROCESSING)",
  }),
}).openapi("Refund");

const RefundEventData = z.object({
  refundId: z.string(),
  transactionId: z.string(),
  amount: z.string(),
  currency: z.enum(["USDT_TRC20", "XOF"]),
  paymentMethod: z.enum(["USDT_TRC20", "CARD", "MOBILE_MONEY"]),
  status: RefundStatusSchema,
  reason: nullableText,
  note: nullableText.openapi({ description: "the operator's note (approved, rejected)" }),
  failureReason: nullableText,
  occurredAt: z.string(),
});

export const REFUND_EVENT_SCHEMAS = {
  "refund.created": RefundEventData,
  "refund.approved": RefundEventData,
  "refund.rejected": RefundEventData,
  "refund.completed": RefundEventData,
  "refund.failed": RefundEventData,
} as const;
