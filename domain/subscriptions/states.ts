// The subscription lifecycle the specification leaves open (docs/decisions.md), as a table of allowed
// moves: each action names where it leads from each state; an action missing from a state's row is
// INVALID_TRANSACTION_STATUS naming the current state, never a silent write.
import type { SubscriptionStatus } from "../../db/subscriptions.ts";
import { AppError } from "../errors.ts";

export const SUBSCRIPTION_STATUSES = ["ACTIVE", "PAST_DUE", "PAUSED", "CANCELLED"] as const;
export const RENEWAL_STATUSES = ["PENDING", "PAID", "FAILED", "CANCELLED"] as const;
export const BILLING_INTERVALS = ["WEEKLY", "MONTHLY", "YEARLY"] as const;

/** Merchant actions, and what renewals do to the subscription (`renew`: paid; `fail`: unpaid). */
export type SubscriptionAction = "pause" | "resume" | "cancel" | "update" | "renew" | "fail";

/** How each action reads in an error message ("it cannot be cancelled"), spelled out: no suffix rules. */
const PAST_PARTICIPLE: Record<SubscriptionAction, string> = {
  pause: "paused",
  resume: "resumed",
  cancel: "cancelled",
  update: "updated",
  renew: "renewed",
  fail: "marked failed",
};

const MOVES: Record<SubscriptionStatus, Partial<Record<SubscriptionAction, SubscriptionStatus>>> = {
  ACTIVE: { pause: "PAUSED", cancel: "CANCELLED", update: "ACTIVE", renew: "ACTIVE", fail: "PAST_DUE" },
  // Billing goes on while past due: the next renewal still starts, and a paid one makes it ACTIVE again.
  PAST_DUE: { pause: "PAUSED", cancel: "CANCELLED", update: "PAST_DUE", renew: "ACTIVE", fail: "PAST_DUE" },
  // No renewal starts while paused; one already asked for may still be paid (or fail) without resuming it.
  PAUSED: { resume: "ACTIVE", cancel: "CANCELLED", update: "PAUSED", renew: "PAUSED", fail: "PAUSED" },
  CANCELLED: {},
};

export function nextStatus(
  from: SubscriptionStatus,
  action: SubscriptionAction,
): SubscriptionStatus | undefined {
  return MOVES[from]?.[action];
}

export function assertSubscriptionMove(
  from: SubscriptionStatus,
  action: SubscriptionAction,
): SubscriptionStatus {
  const to = nextStatus(from, action);
  if (!to) {
    throw new AppError(
      "INVALID_TRANSACTION_STATUS",
      `Subscription is ${from}; it cannot be ${PAST_PARTICIPLE[action]}`,
      { reason: `SUBSCRIPTION_${from}` },
    );
  }
  return to;
}
