// The audit record of an operator's decision on a payout or withdrawal (review.ts, and complete-fiat in
// fiat_out/withdrawals.ts), written last in the decision's transaction.
import type { OutboundRow } from "../../db/outbound.ts";
import { appendAudit } from "../audit/trail.ts";
import type { Deps } from "../deps.ts";
import type { Actor } from "../operators/roles.ts";

/** An operator's decision: `reviewer` is the name recorded with it, `actor` who is signed in. */
export type DecisionInput = { id: string; reviewer: string; note?: string; actor: Actor };

/** The audit record of a decision on a payout or withdrawal, last in its transaction. */
export async function auditDecision(
  deps: Pick<Deps, "db" | "clock">,
  input: DecisionInput,
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
