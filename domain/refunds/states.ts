// The refund state machine as a table of allowed moves, and the move itself: one conditional update
// under the row's lock, with the move's event written in the same transaction.
import { type RefundRow, type RefundStatus, updateRefund } from "../../db/refunds.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { emitEvent, type EventType } from "../webhooks/events.ts";
import { refundEventData } from "./view.ts";

export const REFUND_STATUSES = [
  "PENDING_APPROVAL",
  "APPROVED",
  "SENDING",
  "PROCESSING",
  "COMPLETED",
  "FAILED",
  "REJECTED",
  "CANCELLED",
] as const satisfies readonly RefundStatus[];

export const REFUND_TRANSITIONS: Record<RefundStatus, readonly RefundStatus[]> = {
  PENDING_APPROVAL: ["APPROVED", "REJECTED", "CANCELLED"],
  // APPROVED -> PROCESSING: a mobile money refund handed to the disbursement seam in one step.
  APPROVED: ["SENDING", "PROCESSING", "FAILED"],
  // SENDING -> SENDING: the acquirer never heard of it after a crash, so it is sent again (same reference).
  SENDING: ["SENDING", "PROCESSING", "COMPLETED", "FAILED"],
  PROCESSING: ["COMPLETED", "FAILED"],
  COMPLETED: [],
  FAILED: [],
  REJECTED: [],
  CANCELLED: [],
};

/** The webhook event of arriving in a state (none for the sender's own steps, nor for a merchant's cancel). */
const EVENT_OF: Partial<Record<RefundStatus, EventType>> = {
  APPROVED: "refund.approved",
  REJECTED: "refund.rejected",
  COMPLETED: "refund.completed",
  FAILED: "refund.failed",
};

export function isOpen(status: RefundStatus): boolean {
  return REFUND_TRANSITIONS[status].length > 0;
}

/** An illegal move is a typed error naming the current state. */
export function assertRefundMove(from: RefundStatus, to: RefundStatus): void {
  if (!REFUND_TRANSITIONS[from].includes(to)) {
    throw new AppError("INVALID_TRANSACTION_STATUS", `Refund is ${from}; it cannot become ${to}`);
  }
}

/** Moves a refund locked by the caller's transaction `deps.db`, and writes the move's event there too. */
export async function transitionRefund(
  deps: Pick<Deps, "db" | "queue" | "clock">,
  row: RefundRow,
  to: RefundStatus,
  patch: Partial<RefundRow> = {},
): Promise<RefundRow> {
  assertRefundMove(row.status, to);
  const moved = await updateRefund(deps.db, row.id, { ...patch, status: to }, deps.clock.now());
  const event = EVENT_OF[to];
  if (event && to !== row.status) {
    await emitEvent(deps, {
      merchantId: moved.merchant_id,
      isSandbox: moved.is_sandbox,
      type: event,
      data: refundEventData(moved, deps.clock.now()),
    });
  }
  return moved;
}
