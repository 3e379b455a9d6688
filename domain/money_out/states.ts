// The payout and withdrawal state machines as tables of allowed moves (specification, Part 1, "Payout"
// and "Withdrawal"), plus the moves the specification leaves open, named in docs/decisions.md.
import { AppError } from "../errors.ts";

export const PAYOUT_STATUSES = [
  "PENDING",
  "PROCESSING",
  "BROADCAST",
  "CONFIRMED",
  "FAILED",
  "CANCELLED",
] as const;
export const WITHDRAWAL_STATUSES = [
  "PENDING_REVIEW",
  "APPROVED",
  "BROADCAST",
  "CONFIRMED",
  "REJECTED",
  "FAILED",
  "CANCELLED",
] as const;
export type PayoutStatus = typeof PAYOUT_STATUSES[number];
export type WithdrawalStatus = typeof WITHDRAWAL_STATUSES[number];
export type OutboundStatus = PayoutStatus | WithdrawalStatus;
export type OutboundKind = "PAYOUT" | "WITHDRAWAL";
/** What the sender carries: also a USDT refund's transfer (domain/refunds/usdt.ts), whose money is the refund's. */
export type SenderKind = OutboundKind | "REFUND";

const PAYOUT_MOVES: Record<PayoutStatus, readonly PayoutStatus[]> = {
  // PENDING waits for an operator: approval sends it on, rejection fails it with the money back.
  PENDING: ["PROCESSING", "FAILED"],
  PROCESSING: ["BROADCAST", "FAILED"],
  // A broadcast transaction that fails on chain (e.g. out of energy) refunds: "any pre-final" row.
  BROADCAST: ["CONFIRMED", "FAILED"],
  CONFIRMED: [],
  FAILED: [],
  CANCELLED: [],
};

const WITHDRAWAL_MOVES: Record<WithdrawalStatus, readonly WithdrawalStatus[]> = {
  PENDING_REVIEW: ["APPROVED", "REJECTED", "CANCELLED"],
  APPROVED: ["BROADCAST", "FAILED"],
  BROADCAST: ["CONFIRMED", "FAILED"],
  CONFIRMED: [],
  REJECTED: [],
  FAILED: [],
  CANCELLED: [],
};

/** A refund's transfer starts ready to send (the refund was approved and the customer gave an address). */
const REFUND_MOVES: Record<string, readonly string[]> = {
  APPROVED: ["BROADCAST", "FAILED"],
  BROADCAST: ["CONFIRMED", "FAILED"],
  CONFIRMED: [],
  FAILED: [],
};

function movesOf(kind: SenderKind): Record<string, readonly string[]> {
  return kind === "PAYOUT" ? PAYOUT_MOVES : kind === "REFUND" ? REFUND_MOVES : WITHDRAWAL_MOVES;
}

export function canMoveOutbound(kind: SenderKind, from: string, to: string): boolean {
  return movesOf(kind)[from]?.includes(to) ?? false;
}

/** An illegal move is a typed error naming the current state, never a silent write. */
export function assertOutboundMove(kind: SenderKind, from: string, to: string): void {
  if (!canMoveOutbound(kind, from, to)) {
    const name = kind === "PAYOUT" ? "Payout" : kind === "REFUND" ? "Refund transfer" : "Withdrawal";
    throw new AppError("INVALID_TRANSACTION_STATUS", `${name} is ${from}; it cannot become ${to}`);
  }
}

/** The state in which an accepted item is handed to the broadcaster. */
export const READY_TO_SEND: Record<SenderKind, OutboundStatus> = {
  PAYOUT: "PROCESSING",
  WITHDRAWAL: "APPROVED",
  REFUND: "APPROVED",
};
/** The state in which an item waits for an operator. */
/** The state in which an item waits for an operator (a refund's transfer never does: its refund was reviewed). */
export const AWAITING_REVIEW: Record<SenderKind, OutboundStatus | null> = {
  PAYOUT: "PENDING",
  WITHDRAWAL: "PENDING_REVIEW",
  REFUND: null,
};
