// The bulk batch state machine (specification, Part 1, "Bulk batch") and the item states the
// specification leaves open (docs/decisions.md), as tables of allowed moves.
import { AppError } from "../errors.ts";

export const BATCH_STATUSES = [
  "DRAFT",
  "VALIDATED",
  "PENDING_REVIEW",
  "PROCESSING",
  "COMPLETED",
  "PARTIALLY_COMPLETED",
  "REJECTED",
  "CANCELLED",
] as const;
export type BatchStatus = typeof BATCH_STATUSES[number];

const BATCH_MOVES: Record<BatchStatus, readonly BatchStatus[]> = {
  // Validating again refreshes the preview; adding items is only for DRAFT.
  DRAFT: ["VALIDATED", "CANCELLED"],
  // A mobile money batch paying numbers that are not registered fiat destinations past their cooldown is
  // debited at execution but waits for an operator (domain/bulk/review.ts), like an XOF withdrawal.
  VALIDATED: ["VALIDATED", "PENDING_REVIEW", "PROCESSING", "CANCELLED"],
  PENDING_REVIEW: ["PROCESSING", "REJECTED", "CANCELLED"],
  PROCESSING: ["COMPLETED", "PARTIALLY_COMPLETED"],
  COMPLETED: [],
  PARTIALLY_COMPLETED: ["PROCESSING"],
  REJECTED: [],
  CANCELLED: [],
};

/**
 * PENDING: in a batch not yet executed, or debited and waiting for an operator's review. QUEUED: debited
 * with the batch, waiting to be handed to its rail. PROCESSING: a payment exists for it (a payout for
 * USDT). SUCCEEDED / FAILED: its payment's end (a failure released its money). A retry queues FAILED items
 * again; a cancelled or rejected batch's are CANCELLED.
 */
export const ITEM_STATUSES = ["PENDING", "QUEUED", "PROCESSING", "SUCCEEDED", "FAILED", "CANCELLED"] as const;
export type ItemStatus = typeof ITEM_STATUSES[number];

export const ITEM_MOVES: Record<ItemStatus, readonly ItemStatus[]> = {
  PENDING: ["QUEUED", "CANCELLED"],
  QUEUED: ["PROCESSING"],
  PROCESSING: ["SUCCEEDED", "FAILED"],
  SUCCEEDED: [],
  FAILED: ["QUEUED"],
  CANCELLED: [],
};

export function canMoveBatch(from: string, to: string): boolean {
  return BATCH_MOVES[from as BatchStatus]?.includes(to as BatchStatus) ?? false;
}

/**
 * The state each action starts from: the move table alone would let `retry` run on a VALIDATED batch or
 * `execute` on one in review (both may move to PROCESSING).
 */
const ACTION_FROM: Record<string, readonly BatchStatus[]> = {
  executed: ["VALIDATED"],
  retried: ["PARTIALLY_COMPLETED"],
  approved: ["PENDING_REVIEW"],
  rejected: ["PENDING_REVIEW"],
};

/** An illegal move is a typed error naming the current state. */
export function assertBatchMove(from: string, to: string, action: string): void {
  const starts = ACTION_FROM[action];
  if (!canMoveBatch(from, to) || (starts && !starts.includes(from as BatchStatus))) {
    throw new AppError("INVALID_TRANSACTION_STATUS", `Batch is ${from}; it cannot be ${action}`);
  }
}

export function assertItemMove(from: string, to: string): void {
  if (!ITEM_MOVES[from as ItemStatus]?.includes(to as ItemStatus)) {
    throw new Error(`bulk item cannot move from ${from} to ${to}`);
  }
}
