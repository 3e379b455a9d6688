// The audit record of an operator's decision on a payout or withdrawal (review.ts, and complete-fiat in
// fiat_out/withdrawals.ts), written last in the decision's transaction.
import type { OutboundRow } from "../../db/outbound.ts";
import { appendAudit } from "../audit/trail.ts";
import type { Deps } from "../deps.ts";
import { type Actor, recordedReviewer } from "../operators/roles.ts";

/**
 * An operator's decision: `actor` is who is signed in, `reviewer` the name the caller gives (required with
 * the token; see recordedReviewer), resolved once the item is found.
 */
export type DecisionInput = { id: string; reviewer?: string; note?: string; actor: Actor };
export type ResolvedDecision = DecisionInput & { reviewer: string };

/** The decision with the name it is recorded under (VALIDATION_ERROR when the token names nobody). */
export function resolveDecision(input: DecisionInput): ResolvedDecision {
  return { ...input, reviewer: recordedReviewer(input.actor, input.reviewer) };
}

/** The audit record of a decision on a payout or withdrawal, last in its transaction. */
export async function auditDecision(
  deps: Pick<Deps, "db" | "clock">,
  input: ResolvedDecision,
  verb: string,
  before: OutboundRow,
  after: OutboundRow,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await appendAudit(deps, input.actor, {
    action: `${before.kind.toLowerCase()}.${verb}`,
    itemType: before.kind,
    itemId: before.id,
    note: input.note?.trim() || null,
    before: { status: before.status },
    after: { status: after.status, reviewer: input.reviewer, ...extra },
  });
}
