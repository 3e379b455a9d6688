// The dispute lifecycle the specification leaves open (docs/decisions.md), as a table of allowed moves.
// OPEN: waiting for the merchant's evidence until `evidenceDueAt`. UNDER_REVIEW: evidence in, waiting
// for an operator (more evidence may follow until the deadline). ESCALATED: sent to the provider's next
// tier, the hold stays. RESOLVED (merchant won: hold released) and REJECTED (cardholder won: the held
// amount is debited) are final. A move not in the table is INVALID_TRANSACTION_STATUS naming the state.
import { AppError } from "../errors.ts";

export const DISPUTE_STATUSES = ["OPEN", "UNDER_REVIEW", "ESCALATED", "RESOLVED", "REJECTED"] as const;
export type DisputeStatus = typeof DISPUTE_STATUSES[number];

/**
 * `evidence`, `accept`: the merchant. `resolve`, `reject`, `escalate`: an operator (or the provider's
 * outcome). `expire`: the deadline job, for a dispute that got no evidence in time.
 */
export type DisputeAction = "evidence" | "accept" | "resolve" | "reject" | "escalate" | "expire";

const MOVES: Record<DisputeStatus, Partial<Record<DisputeAction, DisputeStatus>>> = {
  OPEN: {
    evidence: "UNDER_REVIEW",
    accept: "REJECTED",
    resolve: "RESOLVED",
    reject: "REJECTED",
    escalate: "ESCALATED",
    expire: "REJECTED",
  },
  UNDER_REVIEW: {
    evidence: "UNDER_REVIEW",
    accept: "REJECTED",
    resolve: "RESOLVED",
    reject: "REJECTED",
    escalate: "ESCALATED",
  },
  ESCALATED: { resolve: "RESOLVED", reject: "REJECTED" },
  RESOLVED: {},
  REJECTED: {},
};

const VERB: Record<DisputeAction, string> = {
  evidence: "given evidence",
  accept: "accepted",
  resolve: "resolved",
  reject: "rejected",
  escalate: "escalated",
  expire: "expired",
};

export function nextDisputeStatus(from: string, action: DisputeAction): DisputeStatus | undefined {
  return MOVES[from as DisputeStatus]?.[action];
}

export function assertDisputeMove(from: string, action: DisputeAction): DisputeStatus {
  const to = nextDisputeStatus(from, action);
  if (!to) {
    throw new AppError("INVALID_TRANSACTION_STATUS", `Dispute is ${from}; it cannot be ${VERB[action]}`, {
      reason: `DISPUTE_${from}`,
    });
  }
  return to;
}

export function isClosed(status: string): boolean {
  return status === "RESOLVED" || status === "REJECTED";
}
