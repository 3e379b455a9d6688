// The `data` of the subscription.* events (domain/subscriptions/view.ts subscriptionEventData), field by
// field, for the OpenAPI `webhooks` section.
import { z } from "@hono/zod-openapi";
import {
  BILLING_INTERVALS,
  RENEWAL_STATUSES,
  SUBSCRIPTION_STATUSES,
} from "../../domain/subscriptions/states.ts";

const nullableText = z.string().nullable();
const currency = z.enum(["USDT_TRC20", "XOF"]);

const renewal = z.object({
  id: z.string(),
  subscriptionId: z.string(),
  periodIndex: z.number().int(),
  periodStart: z.string(),
  periodEnd: z.string(),
  status: z.enum(RENEWAL_STATUSES),
  amount: z.string(),
  currency,
  graceUntil: z.string(),
  transactionId: nullableText,
  failureReason: nullableText,
  paidAt: nullableText,
  failedAt: nullableText,
  renewalUrl: z.string(),
  createdAt: z.string(),
});

const base = {
  subscriptionId: z.string(),
  paylinkId: z.string(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  customer: z.object({ email: z.string(), name: nullableText, phone: nullableText }),
  amount: z.string(),
  currency,
  interval: z.enum(BILLING_INTERVALS),
  intervalCount: z.number().int(),
  currentPeriodStart: z.string().openapi({
    description: "the last period paid for (the first one at creation)",
  }),
  currentPeriodEnd: z.string(),
  nextRenewalAt: nullableText,
};

export const SUBSCRIPTION_EVENT_SCHEMAS = {
  "subscription.created": z.object({
    ...base,
    transactionId: nullableText.openapi({ description: "the first checkout's pay-in" }),
  }),
  "subscription.renewal_initiated": z.object({ ...base, renewal }),
  "subscription.renewed": z.object({ ...base, renewal }),
  "subscription.failed": z.object({
    ...base,
    renewal,
    reason: z.enum(["UNPAID", "UNDERPAID"]),
    pausedAt: nullableText.optional(),
  }),
  "subscription.cancelled": z.object({
    ...base,
    cancelledBy: z.enum(["MERCHANT", "CUSTOMER"]),
    cancelledAt: z.string(),
  }),
  "subscription.paused": z.object({ ...base, pausedAt: z.string() }),
  "subscription.resumed": z.object(base),
  "subscription.updated": z.object({
    ...base,
    pausedAt: nullableText.optional(),
    previous: z.object({
      amount: z.string(),
      interval: z.enum(BILLING_INTERVALS),
      intervalCount: z.number().int(),
    }),
  }),
};
