// Operator review of mobile money batches held at execution (domain/bulk/controls.ts says why): the batch
// is debited (its money sits in IN_FLIGHT, shown as reserved in review) and nothing is sent until an
// operator approves it (its items are queued, as at a direct execution) or rejects it (a note is required;
// the debit returns to the merchant's XOF/MOMO wallet in the same transaction). The merchant may cancel it
// before the decision, with the same release. Every decision names its reviewer.
import * as store from "../../db/bulk.ts";
import { findSystemAccount, findWallet } from "../../db/ledger.ts";
import { appendAudit } from "../audit/trail.ts";
import type { Deps } from "../deps.ts";
import { type Actor, recordedReviewer } from "../operators/roles.ts";
import { AppError } from "../errors.ts";
import { isWellFormedId } from "../ids.ts";
import { postJournal } from "../ledger.ts";
import { Decimal } from "../money.ts";
import { assertBatchMove } from "./states.ts";

type ReviewDeps = Pick<Deps, "db" | "queue" | "clock" | "log" | "config">;
/** `reviewer`: the name the caller gives (required with the token; see recordedReviewer). */
export type ReviewDecision = { id: string; reviewer?: string; note?: string; actor: Actor };
type Resolved = ReviewDecision & { reviewer: string };

async function auditBatchDecision(
  deps: Pick<Deps, "db" | "clock">,
  input: Resolved,
  verb: "approve" | "first_approval" | "reject",
  before: store.BatchRow,
  after: store.BatchRow,
): Promise<void> {
  await appendAudit(deps, input.actor, {
    action: `bulk_payment.${verb}`,
    itemType: "BULK_PAYMENT",
    itemId: before.id,
    note: input.note?.trim() || null,
    before: { status: before.status },
    after: { status: after.status, reviewer: input.reviewer },
  });
}

/**
 * Four eyes, as for payouts (domain/money_out/four_eyes.ts): a batch whose total is above
 * FOUR_EYES_ABOVE_USDT / FOUR_EYES_ABOVE_XOF takes two approvals by two different callers.
 */
export function batchApprovalsNeeded(
  config: Pick<Deps["config"], "operators">,
  batch: Pick<store.BatchRow, "currency" | "total_amount">,
): 1 | 2 {
  const limits = config.operators.fourEyesAbove;
  const threshold = batch.currency === "XOF" ? limits.XOF : limits.USDT_TRC20;
  return new Decimal(batch.total_amount).greaterThan(threshold) ? 2 : 1;
}

/** Batches waiting for an operator, oldest first (at most `limit`). */
export async function listBatchesInReview(deps: Pick<Deps, "db">, limit = 100): Promise<store.BatchRow[]> {
  return await store.listBatchesInReview(deps.db, limit);
}

/** Any merchant's batch, for an operator; a malformed or unknown id is NOT_FOUND. */
export async function findBatchForOperator(deps: Pick<Deps, "db">, id: string): Promise<store.BatchRow> {
  const batch = isWellFormedId("blk", id) ? await store.findBatchById(deps.db, id) : undefined;
  if (!batch) throw new AppError("NOT_FOUND", "No bulk payment with this id");
  return batch;
}

/**
 * PENDING_REVIEW -> REJECTED or CANCELLED, in the caller's transaction (batch locked): the execution's
 * debit goes back from IN_FLIGHT to the wallet (journal `bulk:<id>:release`), the items are CANCELLED.
 */
export async function releaseHeldBatch(
  deps: Pick<Deps, "db" | "clock" | "log">,
  batch: store.BatchRow,
  to: "REJECTED" | "CANCELLED",
  patch: store.BatchPatch,
): Promise<store.BatchRow> {
  assertBatchMove(batch.status, to, to === "REJECTED" ? "rejected" : "cancelled");
  const debited = new Decimal(batch.total_amount).plus(batch.total_fee);
  const wallet = await findWallet(deps.db, batch.merchant_id, batch.is_sandbox, "XOF", "MOMO");
  const inFlight = await findSystemAccount(deps.db, "IN_FLIGHT", batch.is_sandbox, "MOMO");
  let moved: store.BatchRow | undefined;
  const result = await postJournal(deps.db, {
    reference: `bulk:${batch.id}:release`,
    kind: "BULK_RELEASE",
    merchantId: batch.merchant_id,
    isSandbox: batch.is_sandbox,
    postings: [
      { accountId: inFlight.id, amount: debited.negated() },
      { accountId: wallet!.id, amount: debited },
    ],
    metadata: { bulkPaymentId: batch.id, to },
  }, async (jtx) => {
    const now = deps.clock.now();
    await store.moveItems(jtx, batch.id, "PENDING", "CANCELLED", now);
    moved = await store.moveBatch(jtx, batch.id, batch.status, to, patch, now);
  });
  if (!result.booked || !moved) throw new AppError("CONFLICT", "This batch was already released");
  deps.log.info("money state change", {
    kind: "BULK",
    id: batch.id,
    merchantId: batch.merchant_id,
    mode: batch.is_sandbox ? "sandbox" : "live",
    to,
    amount: debited.toFixed(),
  });
  return moved;
}

/**
 * PENDING_REVIEW -> PROCESSING: the items are queued (attempt 1) and the run starts after commit. Above the
 * four-eyes amount the first approval is only recorded (the batch keeps waiting), and the caller who gave
 * it cannot give the second: 403 FORBIDDEN, cause SAME_APPROVER.
 */
export async function approveBatch(deps: ReviewDeps, given: ReviewDecision): Promise<store.BatchRow> {
  await findBatchForOperator(deps, given.id);
  const input = { ...given, reviewer: recordedReviewer(given.actor, given.reviewer) };
  return await deps.db.tx(async (tx) => {
    const locked = (await store.lockBatch(tx, input.id))!;
    assertBatchMove(locked.status, "PROCESSING", "approved");
    const now = deps.clock.now();
    if (batchApprovalsNeeded(deps.config, locked) === 2) {
      if (locked.first_approved_actor === null) {
        const by = { reviewer: input.reviewer, actor: input.actor.id, now };
        const first = (await store.recordFirstApproval(tx, locked.id, by))!;
        await auditBatchDecision({ ...deps, db: tx }, input, "first_approval", locked, first);
        return first;
      }
      if (locked.first_approved_actor === input.actor.id) {
        throw new AppError(
          "FORBIDDEN",
          "You gave this batch's first approval: a second, different reviewer must approve it",
          { reason: "SAME_APPROVER" },
        );
      }
    }
    await store.moveItems(tx, locked.id, "PENDING", "QUEUED", now, 1);
    const moved = await store.moveBatch(tx, locked.id, locked.status, "PROCESSING", {
      reviewed_by: input.reviewer,
      reviewed_at: now,
      review_note: input.note?.trim() || null,
    }, now);
    tx.afterCommit(() => deps.queue.enqueue({ type: "bulk.advance", batchId: locked.id }));
    deps.log.info("bulk batch approved", {
      id: locked.id,
      merchantId: locked.merchant_id,
      reviewer: input.reviewer,
    });
    await auditBatchDecision({ ...deps, db: tx }, input, "approve", locked, moved!);
    return moved!;
  });
}

/** PENDING_REVIEW -> REJECTED with a note saying why; the money returns to the wallet. */
export async function rejectBatch(deps: ReviewDeps, given: ReviewDecision): Promise<store.BatchRow> {
  await findBatchForOperator(deps, given.id);
  const input = { ...given, reviewer: recordedReviewer(given.actor, given.reviewer) };
  const note = input.note?.trim();
  if (!note) throw new AppError("REASON_NOTE_REQUIRED", "A rejection needs a note saying why");
  return await deps.db.tx(async (tx) => {
    const locked = (await store.lockBatch(tx, input.id))!;
    const now = deps.clock.now();
    const moved = await releaseHeldBatch({ ...deps, db: tx }, locked, "REJECTED", {
      reviewed_by: input.reviewer,
      reviewed_at: now,
      review_note: note,
    });
    await auditBatchDecision({ ...deps, db: tx }, input, "reject", locked, moved);
    return moved;
  });
}
