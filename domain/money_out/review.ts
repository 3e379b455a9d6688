// Operator review and merchant cancellation. Each locks the item first, so an approval racing a cancel
// (or two operators) lets exactly one win; every decision is appended to review_decisions, and every
// operator decision to the audit trail, in the decision's own transaction.
import { liveOutgoing } from "../../db/chain_outgoing.ts";
import {
  findOutbound,
  findOutboundById,
  insertReviewDecision,
  listAwaitingReview,
  listReviewDecisions,
  lockOutbound,
  type OutboundRow,
} from "../../db/outbound.ts";
import type { Deps } from "../deps.ts";
import { auditDecision, type DecisionInput, resolveDecision } from "./review_audit.ts";
import { approvalsNeeded, approvalStep } from "./four_eyes.ts";
import { AppError } from "../errors.ts";
import { assertFiatApprovable, queueFiatWithdrawalPayment } from "../fiat_out/withdrawals.ts";
import { releaseOutbound } from "./finish.ts";
import { AWAITING_REVIEW, READY_TO_SEND } from "./states.ts";
import { transitionOutbound } from "./transition.ts";

type ReviewDeps = Pick<Deps, "db" | "queue" | "clock" | "log" | "config">;
export type { DecisionInput };

function notAwaiting(row: OutboundRow): AppError {
  return new AppError(
    row.kind === "WITHDRAWAL" ? "WITHDRAWAL_NOT_PENDING_REVIEW" : "INVALID_TRANSACTION_STATUS",
    `${row.kind === "WITHDRAWAL" ? "Withdrawal" : "Payout"} is ${row.status}, not awaiting review`,
  );
}

/**
 * An approval. Above the four-eyes threshold the first one is recorded and the item keeps waiting (a bank
 * withdrawal takes its first approval here, its second is complete-fiat); the second, by another
 * reviewer, sends it on.
 */
export async function approveOutbound(deps: ReviewDeps, given: DecisionInput): Promise<OutboundRow> {
  const approved = await deps.db.tx(async (tx) => {
    const row = await lockOutbound(tx, given.id);
    if (!row) throw new AppError("NOT_FOUND", "No payout or withdrawal with this id");
    const input = resolveDecision(given);
    if (approvalsNeeded(deps.config, row) === 1) assertFiatApprovable(row);
    if (row.status !== AWAITING_REVIEW[row.kind]) throw notAwaiting(row);
    const now = deps.clock.now();
    const decision = { outboundId: row.id, operator: input.reviewer, note: input.note ?? null, now };
    if (await approvalStep({ db: tx, config: deps.config }, row, input.actor.id) === "first") {
      await insertReviewDecision(tx, { ...decision, decision: "FIRST_APPROVAL", actor: input.actor.id });
      await auditDecision({ ...deps, db: tx }, input, "first_approval", row, row, { approvals: "1 of 2" });
      return row;
    }
    assertFiatApprovable(row);
    await insertReviewDecision(tx, { ...decision, decision: "APPROVE", actor: input.actor.id });
    const moved = await transitionOutbound({ ...deps, db: tx }, row, READY_TO_SEND[row.kind], {
      approved_at: now,
    });
    if (row.currency === "XOF") await queueFiatWithdrawalPayment({ ...deps, db: tx }, moved!);
    else tx.afterCommit(() => deps.queue.enqueue({ type: "outbound.send", outboundId: row.id }));
    await auditDecision({ ...deps, db: tx }, input, "approve", row, moved!);
    return moved!;
  });
  return approved;
}

/**
 * A decision that sends an item's money back: under the item's lock, with a note required, `check` may
 * refuse on the item's state; the decision is recorded and the money released in one transaction.
 */
async function decideAndRelease(
  deps: ReviewDeps,
  given: DecisionInput,
  decision: { kind: "REJECT" | "CANCEL"; reason: string; noteNeeded: string },
  check: (tx: ReviewDeps["db"], row: OutboundRow) => Promise<string>,
): Promise<OutboundRow> {
  const note = given.note?.trim();
  return await deps.db.tx(async (tx) => {
    const row = await lockOutbound(tx, given.id);
    if (!row) throw new AppError("NOT_FOUND", "No payout or withdrawal with this id");
    const input = resolveDecision(given);
    if (!note) throw new AppError("REASON_NOTE_REQUIRED", decision.noteNeeded);
    const to = await check(tx, row);
    const now = deps.clock.now();
    await insertReviewDecision(tx, {
      outboundId: row.id,
      decision: decision.kind,
      operator: input.reviewer,
      note,
      now,
      actor: input.actor.id,
    });
    const moved = await releaseOutbound({ ...deps, db: tx }, {
      id: row.id,
      to,
      patch: { failure_reason: decision.reason, failed_at: now },
      strict: true,
    });
    await auditDecision({ ...deps, db: tx }, input, decision.kind.toLowerCase(), row, moved!);
    return moved!;
  });
}

/** Rejection needs a note; the money returns to the wallet in the same transaction. */
export async function rejectOutbound(deps: ReviewDeps, input: DecisionInput): Promise<OutboundRow> {
  return await decideAndRelease(deps, input, {
    kind: "REJECT",
    reason: "REJECTED_BY_REVIEW",
    noteNeeded: "A rejection needs a note saying why",
  }, (_tx, row) => {
    if (row.status !== AWAITING_REVIEW[row.kind]) throw notAwaiting(row);
    // A payout has no REJECTED state: a rejected one fails with its money back (payout.failed says why).
    return Promise.resolve(row.kind === "WITHDRAWAL" ? "REJECTED" : "FAILED");
  });
}

/**
 * An operator cancels an accepted USDT item that has not been signed yet (say it waits for a hot wallet
 * that no sweep will refill soon): it fails with reason CANCELLED_BY_OPERATOR and its money returns, in
 * one transaction under the item's lock, so it can never also be signed (signing takes the same lock and
 * looks for a stored transaction). A signed one may still land: it cannot be cancelled.
 */
export async function cancelUnsentOutbound(deps: ReviewDeps, input: DecisionInput): Promise<OutboundRow> {
  return await decideAndRelease(deps, input, {
    kind: "CANCEL",
    reason: "CANCELLED_BY_OPERATOR",
    noteNeeded: "A cancellation needs a note saying why",
  }, async (tx, row) => {
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
    return "FAILED";
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

/** One payout or withdrawal as the operator sees it; NOT_FOUND for an unknown or malformed id. */
export async function findReviewItem(deps: Pick<Deps, "db">, id: string) {
  const row = /^(pout|wdr)_[0-9a-z]{26}$/.test(id) ? await findOutboundById(deps.db, id) : undefined;
  if (!row) throw new AppError("NOT_FOUND", "No payout or withdrawal with this id");
  return row;
}

export async function reviewHistory(deps: Pick<Deps, "db">, id: string) {
  return await listReviewDecisions(deps.db, id);
}
