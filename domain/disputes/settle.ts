// One move of a dispute through its state table, with its money and its event, inside the caller's
// transaction (which holds the dispute's row lock): RESOLVED releases the hold, REJECTED debits it (and
// collects what is still owed, as far as the wallet goes), ESCALATED keeps it.
import * as disputesDb from "../../db/disputes.ts";
import type { DisputeRow } from "../../db/disputes.ts";
import type { Db } from "../../db/mod.ts";
import type { Deps } from "../deps.ts";
import { emitEvent } from "../webhooks/events.ts";
import { debitHeld, releaseHeld, takeOwed } from "./hold.ts";
import { assertDisputeMove, type DisputeAction } from "./states.ts";
import { type DisputeEvent, disputeEventData } from "./view.ts";

export type Outcome =
  | "MERCHANT_WON"
  | "OPERATOR_REJECTED"
  | "ACCEPTED"
  | "DEADLINE_MISSED"
  | "PROVIDER_LOST"
  | "PROVIDER_WON";

const EVENT_OF: Record<string, DisputeEvent> = {
  RESOLVED: "dispute.resolved",
  REJECTED: "dispute.rejected",
  ESCALATED: "dispute.escalated",
};

export async function settleDispute(
  deps: Pick<Deps, "clock" | "queue">,
  tx: Db,
  d: DisputeRow,
  action: Exclude<DisputeAction, "evidence">,
  decision: { outcome?: Outcome; decidedBy: string; note: string | null },
): Promise<DisputeRow> {
  const now = deps.clock.now();
  const to = assertDisputeMove(d.status, action);
  const common = { status: to, decided_by: decision.decidedBy, decision_note: decision.note };
  let moved: DisputeRow | undefined;
  if (to === "RESOLVED") {
    const money = await releaseHeld(tx, d);
    moved = await disputesDb.moveDispute(tx, d.id, d.status, {
      ...common,
      ...money,
      outcome: decision.outcome ?? "MERCHANT_WON",
      closed_at: now,
    }, now);
  } else if (to === "REJECTED") {
    const money = await debitHeld(tx, d);
    moved = await disputesDb.moveDispute(tx, d.id, d.status, {
      ...common,
      ...money,
      outcome: decision.outcome ?? "OPERATOR_REJECTED",
      closed_at: now,
    }, now);
    if (moved) moved = await takeOwed(tx, moved, now);
  } else {
    moved = await disputesDb.moveDispute(tx, d.id, d.status, { ...common, escalated_at: now }, now);
  }
  if (!moved) throw new Error(`dispute ${d.id} moved while locked`);
  await emitEvent({ ...deps, db: tx }, {
    merchantId: moved.merchant_id,
    isSandbox: moved.is_sandbox,
    type: EVENT_OF[to],
    data: disputeEventData(moved, now),
  });
  return moved;
}
