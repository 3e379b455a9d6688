// The data of dispute.* events (domain/disputes/view.ts disputeEventData): the same fields for each.
import { z } from "@hono/zod-openapi";
import { DISPUTE_STATUSES } from "../../domain/disputes/states.ts";

const data = z.object({
  disputeId: z.string(),
  transactionId: z.string().openapi({ description: "the disputed pay-in" }),
  status: z.enum(DISPUTE_STATUSES),
  reason: z.string(),
  amount: z.string(),
  currency: z.enum(["USDT_TRC20", "XOF"]),
  heldAmount: z.string().openapi({ description: "held from the wallet after this event" }),
  shortfall: z.string().openapi({ description: "what the wallet could not cover yet" }),
  evidenceDueAt: z.string(),
  outcome: z.string().nullable().openapi({
    description: "MERCHANT_WON, OPERATOR_REJECTED, ACCEPTED or DEADLINE_MISSED once decided",
  }),
  occurredAt: z.string(),
});

export const DISPUTE_EVENT_SCHEMAS = {
  "dispute.opened": data,
  "dispute.resolved": data,
  "dispute.rejected": data,
  "dispute.escalated": data,
};
