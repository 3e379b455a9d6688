// Operator review and merchant cancellation. Each locks the item first, so an approval racing a cancel
// (or two operators) lets exactly one win; every decision is appended to review_decisions.
import { liveOutgoing } from "../../db/chain_outgoing.ts";
import {
  findOutbound,
  insertReviewDecision,
  listAwaitingReview,
  listReviewDecisions,
  lockOutbound,
  type OutboundRow,
} from "../../db/outbound.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { assertFiatApprovable, queueFiatWithdrawalPayment } from "../fiat_out/withdrawals.ts";
import { releaseOutbound } from "./finish.ts";
import { AWAITING_REVIEW, READY_TO_SEND } from "./states.ts";
import { transitionOutbound } from "./transition.ts";

type ReviewDeps = Pick<Deps, "db" | "queue" | "clock" | "log">;

function notAwaiting(row: OutboundRow): AppError {
  return new AppError(
    row.kind === "WITHDRAWAL" ? "WITHDRAWAL_NOT_PENDING_REVIEW" : "INVALID_TRANSACTION_STATUS",
    `${row.kind === "WITHDRAWAL" ? "Withdrawal" : "Payout"} is ${row.status}, not awaiting review`,
  );
}

export async function approveOutbound(
  deps: ReviewDeps,
  input: { id: string; reviewer: string; note?: string },
): Promise<OutboundRow> {
  const approved = await deps.db.tx(async (tx) => {
    const row = await lockOutbound(tx, input.id);
    if (!row) throw new AppError("NOT_FOUND", "No payout or withdrawal with this id");
    assertFiatApprovable(row);
    if (row.status !== AWAITING_REVIEW[row.kind]) throw notAwaiting(row);
    const now = deps.clock.now();
    await insertReviewDecision(tx, {
      outboundId: row.id,
      decision: "APPROVE",
      operator: input.reviewer,
      note: input.note ?? null,
      now,
    });
    const moved = await transitionOutbound({ ...deps, db: tx }, row, READY_TO_SEND[row.kind], {
      approved_at: now,
    });
    if (row.currency === "XOF") await queueFiatWithdrawalPayment({ ...deps, db: tx }, moved!);
    else tx.afterCommit(() => deps.queue.enqueue({ type: "outbound.send", outboundId: row.id }));
    return moved!;
  });
  return approved;
}

/** Rejection needs a note; the money returns to the wallet in the same transaction. */
export async function rejectOutbound(
  deps: ReviewDeps,
  input: { id: string; reviewer: string; note?: string },
): Promise<OutboundRow> {
  const note = input.note?.trim();
  return await deps.db.tx(async (tx) => {
    const row = await lockOutbound(tx, input.id);
    if (!row) throw new AppError("NOT_FOUND", "No payout or withdrawal with this id");
    if (!note) throw new AppError("REASON_NOTE_REQUIRED", "A rejection needs a note saying why");
    if (row.status !== AWAITING_REVIEW[row.kind]) throw notAwaiting(row);
    const now = deps.clock.now();
    await insertReviewDecision(tx, {
      outboundId: row.id,
      decision: "REJECT",
      operator: input.reviewer,
      note,
      now,
    });
    // A payout has no REJECTED state: a rejected one fails with its money back (payout.failed says why).
    const to = row.kind === "WITHDRAWAL" ? "REJECTED" : "FAILED";
    const moved = await releaseOutbound({ ...deps, db: tx }, {
      id: row.id,
      to,
      patch: { failure_reason: "REJECTED_BY_REVIEW", failed_at: now },
      strict: true,
    });
    return moved!;
  });
}

/**
 * An operator cancels an accepted USDT item that has not been signed yet (say it waits for a hot wallet
 * that no sweep will refill soon): it fails with reason CANCELLED_BY_OPERATOR and its money returns, in
 * one transaction under the item's lock, so it can never also be signed (signing takes the same lock and
 * looks for a stored transaction). A signed one may still land: it cannot be cancelled.
 */
export async function cancelUnsentOutbound(
  deps: ReviewDeps,
  input: { id: string; reviewer: string; note?: string },
): Promise<OutboundRow> {
  const note = input.note?.trim();
  return await deps.db.tx(async (tx) => {
    const row = await lockOutbound(tx, input.id);
    if (!row) throw new AppError("NOT_FOUND", "No payout or withdrawal with this id");
    if (!note) throw new AppError("REASON_NOTE_REQUIRED", "A cancellation needs a note saying why");
    const name = row.kind === "PAYOUT" ? "Payout" : "Withdrawal";
    if (row.currency !== "USDT_TRC20" || row.status !== READY_TO_SEND[row.kind]) {
      throw new AppError(
        "CANNOT_CANCEL",
        `${name} is ${row.status}; only an accepted USDT item not yet sent`,
      );
    }
    if (await liveOutgoing(tx, row.id)) {
      throw new AppError("CANNOT_CANCEL", `${name}'s transaction is already signed and may land on chain`);
    }
    const now = deps.clock.now();
    await insertReviewDecision(tx, {
      outboundId: row.id,
      decision: "CANCEL",
      operator: input.reviewer,
      note,
      now,
    });
    const moved = await releaseOutbound({ ...deps, db: tx }, {
      id: row.id,
      to: "FAILED",
      patch: { failure_reason: "CANCELLED_BY_OPERATOR", failed_at: now },
      strict: true,
    });
    return moved!;
  });
}

/** DELETE /v1/withdrawals/:id: only while PENDING_REVIEW; the money returns at once. */
export async function cancelWithdrawal(
  deps: ReviewDeps,
  input: { merchantId: string; isSandbox: boolean; id: string },
): Promise<OutboundRow> {
  const row = await findOutbound(deps.db, { ...input, kind: "WITHDRAWAL" }, input.id);
  if (!row) throw new AppError("NOT_FOUND", "No withdrawal with this id");
  const cancelled = await releaseOutbound(deps, {
    id: row.id,
    to: "CANCELLED",
    patch: { cancelled_at: deps.clock.now() },
    expectFrom: ["PENDING_REVIEW"],
  });
  if (!cancelled) {
    const now = await findOutbound(deps.db, { ...input, kind: "WITHDRAWAL" }, input.id);
    throw new AppError(
      "CANNOT_CANCEL",
      `Withdrawal is ${now?.status ?? row.status}; only PENDING_REVIEW can be cancelled`,
    );
  }
  return cancelled;
}

export async function listReviewQueue(deps: Pick<Deps, "db">, limit = 100) {
  return await listAwaitingReview(deps.db, limit);
}

export async function reviewHistory(deps: Pick<Deps, "db">, id: string) {
  return await listReviewDecisions(deps.db, id);
}
