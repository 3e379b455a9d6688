// Decisions on a refund waiting for approval: an operator approves or rejects it (a note is required,
// every decision is in the audit trail; above the four-eyes threshold two different reviewers approve),
// or the merchant cancels it. Each locks the refund first, so an approval racing a cancel lets one win;
// rejection and cancellation give the reservation back in the same transaction, once.
import { findRefund, lockRefund, type RefundRow, updateRefund } from "../../db/refunds.ts";
import { audited } from "../audit/audited.ts";
import type { Caller } from "../keys/caller.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { Decimal } from "../money.ts";
import { type Actor, recordedReviewer } from "../operators/roles.ts";
import { returnReservation } from "./finish.ts";
import { transitionRefund } from "./states.ts";
import { customerPagePatch } from "./usdt_link.ts";

type ReviewDeps = Pick<Deps, "db" | "queue" | "clock" | "config">;
export type RefundDecision = { id: string; note: string; reviewer?: string; actor: Actor };

function requireNote(note: string): string {
  const trimmed = note.trim();
  if (!trimmed) throw new AppError("REASON_NOTE_REQUIRED", "A note saying why is required");
  return trimmed;
}

function notAwaiting(row: RefundRow): AppError {
  return new AppError("INVALID_TRANSACTION_STATUS", `Refund is ${row.status}, not awaiting approval`);
}

/** 2 above the four-eyes threshold of the refund's currency (FOUR_EYES_ABOVE_XOF / _USDT), else 1. */
export function refundApprovalsNeeded(config: ReviewDeps["config"], row: RefundRow): 1 | 2 {
  return new Decimal(row.amount).greaterThan(config.operators.fourEyesAbove[row.currency]) ? 2 : 1;
}

export async function approveRefund(deps: ReviewDeps, input: RefundDecision): Promise<RefundRow> {
  const note = requireNote(input.note);
  return await audited(
    deps,
    input.actor,
    { action: "refund.approve", itemType: "REFUND", itemId: input.id, note },
    async (tx) => {
      const row = await lockRefund(tx, input.id);
      if (!row) throw new AppError("NOT_FOUND", "No refund with this id");
      if (row.status !== "PENDING_APPROVAL") throw notAwaiting(row);
      const reviewer = recordedReviewer(input.actor, input.reviewer);
      const txDeps = { ...deps, db: tx };
      if (refundApprovalsNeeded(deps.config, row) === 2) {
        if (!row.first_approved_by) {
          const first = await updateRefund(
            tx,
            row.id,
            { first_approved_by: input.actor.id },
            deps.clock.now(),
          );
          return {
            result: first,
            before: { status: row.status },
            after: { status: row.status, reviewer, approvals: "1 of 2", note },
          };
        }
        if (row.first_approved_by === input.actor.id) {
          throw new AppError(
            "FORBIDDEN",
            "You gave this refund's first approval: a second, different reviewer must approve it",
            { reason: "SAME_APPROVER" },
          );
        }
      }
      const moved = await transitionRefund(txDeps, row, "APPROVED", {
        approved_at: deps.clock.now(),
        reviewer,
        review_note: note,
        ...(await customerPagePatch(deps.config, row, deps.clock.now())),
      });
      tx.afterCommit(() => deps.queue.enqueue({ type: "refund.send", refundId: row.id }));
      return {
        result: moved,
        before: { status: row.status },
        after: { status: moved.status, reviewer, note },
      };
    },
  );
}

export async function rejectRefund(deps: ReviewDeps, input: RefundDecision): Promise<RefundRow> {
  const note = requireNote(input.note);
  return await audited(
    deps,
    input.actor,
    { action: "refund.reject", itemType: "REFUND", itemId: input.id, note },
    async (tx) => {
      const row = await lockRefund(tx, input.id);
      if (!row) throw new AppError("NOT_FOUND", "No refund with this id");
      if (row.status !== "PENDING_APPROVAL") throw notAwaiting(row);
      const reviewer = recordedReviewer(input.actor, input.reviewer);
      const moved = await returnReservation({ ...deps, db: tx }, row, "REJECTED", {
        rejected_at: deps.clock.now(),
        reviewer,
        review_note: note,
      });
      return {
        result: moved,
        before: { status: row.status },
        after: { status: moved.status, reviewer, note },
      };
    },
  );
}

/** POST /v1/refunds/:id/cancel: only while it waits for approval (CANNOT_CANCEL after). */
export async function cancelRefund(deps: ReviewDeps, caller: Caller, id: string): Promise<RefundRow> {
  return await deps.db.tx(async (tx) => {
    const row = await lockRefund(tx, id);
    if (!row || row.merchant_id !== caller.merchantId || row.is_sandbox !== caller.isSandbox) {
      throw new AppError("NOT_FOUND", "No refund with this id");
    }
    if (row.status !== "PENDING_APPROVAL") {
      throw new AppError(
        "CANNOT_CANCEL",
        `Refund is ${row.status}; only one awaiting approval can be cancelled`,
      );
    }
    return await returnReservation({ ...deps, db: tx }, row, "CANCELLED", { cancelled_at: deps.clock.now() });
  });
}

/** An operator's read of any refund. */
export async function findRefundForOperator(deps: Pick<Deps, "db">, id: string): Promise<RefundRow> {
  const row = await findRefund(deps.db, id);
  if (!row) throw new AppError("NOT_FOUND", "No refund with this id");
  return row;
}
