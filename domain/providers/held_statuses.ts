// A status an aggregator answered that the gateway does not know is never guessed (domain/providers/
// polling.ts holds it). Here the operator sees what is held and decides, from what the aggregator's own
// back office shows: succeeded or failed, with a note. The decision settles the pay-in or disbursement
// through the same path a known answer takes (applyFiatOutcome, recordDisbursementOutcome), inside one
// transaction with the audit record, so it settles once: a second decision, or a later poll, finds the
// subject final and moves nothing.
import { lockDisbursement } from "../../db/disbursements.ts";
import { lockPayin } from "../../db/payins.ts";
import {
  clearHeld,
  countOpenHeld,
  type HeldRow,
  listOpenHeld,
  lockPoll,
  type PollSubject,
} from "../../db/provider_polls.ts";
import { appendAudit } from "../audit/trail.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { recordDisbursementOutcome } from "../fiat_out/disburse.ts";
import { formatAmount } from "../money.ts";
import { type Actor, recordedReviewer } from "../operators/roles.ts";
import { applyFiatOutcome } from "../payins/settle_fiat.ts";

export type HeldStatusView = {
  subjectKind: "PAYIN" | "DISBURSEMENT";
  id: string;
  provider: string;
  heldStatus: string;
  heldAt: string;
  pollAttempts: number;
  merchantId: string;
  mode: "live" | "sandbox";
  amount: string;
  currency: "XOF";
  status: string;
  providerRef: string | null;
};

export function view(r: HeldRow): HeldStatusView {
  return {
    subjectKind: r.subject_kind as "PAYIN" | "DISBURSEMENT",
    id: r.subject_id,
    provider: r.provider,
    heldStatus: r.held_status!,
    heldAt: new Date(r.held_at!).toISOString(),
    pollAttempts: r.attempts,
    merchantId: r.merchant_id,
    mode: r.is_sandbox ? "sandbox" : "live",
    amount: formatAmount(r.amount, "XOF"),
    currency: "XOF",
    status: r.subject_status,
    providerRef: r.provider_ref,
  };
}

/** Held statuses whose pay-in or disbursement is still open, oldest first. */
export async function listHeldStatuses(deps: Pick<Deps, "db">, limit = 100): Promise<HeldStatusView[]> {
  return (await listOpenHeld(deps.db, limit)).map(view);
}

/** How many held statuses wait for an operator, per aggregator (the queue, /health and /metrics). */
export async function countHeldStatuses(deps: Pick<Deps, "db">): Promise<Map<string, number>> {
  return new Map((await countOpenHeld(deps.db)).map((r) => [r.provider, Number(r.n)]));
}

export function subjectOf(id: string): PollSubject {
  return { kind: id.startsWith("pay_") ? "PAYIN" : "DISBURSEMENT", id };
}

export type ResolveInput = {
  outcome: "SUCCEEDED" | "FAILED";
  note: string;
  reviewer?: string;
  actor: Actor;
};

/**
 * Settles a held pay-in or disbursement as the operator states. Never held: NOT_FOUND. Already decided,
 * or settled meanwhile by a known answer: INVALID_STATE. A blank note: REASON_NOTE_REQUIRED.
 */
export async function resolveHeldStatus(
  deps: Pick<Deps, "db" | "queue" | "clock" | "config" | "log" | "fiat">,
  id: string,
  input: ResolveInput,
): Promise<{ id: string; subjectKind: string; outcome: string; status: string }> {
  const note = input.note.trim();
  if (!note) throw new AppError("REASON_NOTE_REQUIRED", "Say what the aggregator's back office shows");
  const subject = subjectOf(id);
  const result = await deps.db.tx(async (tx) => {
    const poll = await lockPoll(tx, subject);
    if (!poll || !poll.held_at) {
      throw new AppError("NOT_FOUND", "No status held for an operator with this id");
    }
    const reviewer = recordedReviewer(input.actor, input.reviewer);
    const txDeps = { ...deps, db: tx };
    let status: string | undefined;
    if (subject.kind === "PAYIN") {
      const payin = await lockPayin(tx, id);
      if (poll.held_status && payin?.status === "AWAITING_PAYMENT") {
        const done = await applyFiatOutcome(txDeps, id, {
          status: input.outcome,
          providerRef: payin.provider_ref ?? id,
          ...(input.outcome === "FAILED" ? { reason: "OPERATOR_RESOLVED_FAILED" } : {}),
        });
        status = done?.status;
      }
    } else {
      const row = await lockDisbursement(tx, id);
      if (poll.held_status && row && ["QUEUED", "SENDING", "PENDING"].includes(row.status)) {
        const done = await recordDisbursementOutcome(txDeps, id, {
          status: input.outcome,
          ...(input.outcome === "FAILED" ? { reason: "OPERATOR_RESOLVED_FAILED" } : {}),
        });
        status = done?.status;
      }
    }
    if (!status) {
      throw new AppError("INVALID_STATE", "This held status was already resolved, or settled meanwhile");
    }
    await clearHeld(tx, subject, deps.clock.now());
    await appendAudit({ db: tx, clock: deps.clock }, input.actor, {
      action: "provider_status.resolve",
      itemType: subject.kind,
      itemId: id,
      note,
      before: { heldStatus: poll.held_status, provider: poll.provider },
      after: { outcome: input.outcome, status, reviewer },
    });
    return { id, subjectKind: subject.kind, outcome: input.outcome, status };
  });
  deps.log.info("held aggregator status resolved by an operator", { id, outcome: input.outcome });
  return result;
}
