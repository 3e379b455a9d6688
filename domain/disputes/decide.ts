// The operator's side: open a dispute on a complaint (mobile money, USDT, or a card case entered by hand)
// and decide one: resolve (merchant wins), reject (cardholder wins), escalate (provider's next tier).
// A note is required; each action and its audit record commit in one transaction.
import * as disputesDb from "../../db/disputes.ts";
import { appendAudit } from "../audit/trail.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { newId } from "../ids.ts";
import { type Actor, recordedReviewer } from "../operators/roles.ts";
import { openDispute } from "./open.ts";
import { settleDispute } from "./settle.ts";
import { type DisputeView, disputeView } from "./view.ts";

type DecideDeps = Pick<Deps, "db" | "clock" | "queue" | "config">;

function requireNote(note: string | undefined): string {
  const trimmed = note?.trim();
  if (!trimmed) throw new AppError("REASON_NOTE_REQUIRED", "A note saying why is required");
  return trimmed;
}

const before = (v: DisputeView) => ({ status: v.status, heldAmount: v.heldAmount, shortfall: v.shortfall });

export async function openDisputeByOperator(
  deps: DecideDeps,
  input: {
    transactionId: string;
    reason: string;
    amount?: string;
    note?: string;
    reviewer?: string;
    actor: Actor;
  },
): Promise<DisputeView & { merchantId: string }> {
  const note = requireNote(input.note);
  const openedBy = recordedReviewer(input.actor, input.reviewer);
  return await deps.db.tx(async (tx) => {
    const { dispute } = await openDispute({ ...deps, db: tx }, {
      payinId: input.transactionId,
      source: "OPERATOR",
      caseRef: newId("dsp"),
      reason: input.reason,
      cardOrigin: "LOCAL",
      amount: input.amount,
      openedBy,
    });
    const view = disputeView(dispute);
    await appendAudit({ db: tx, clock: deps.clock }, input.actor, {
      action: "dispute.open",
      itemType: "DISPUTE",
      itemId: dispute.id,
      note,
      before: null,
      after: before(view),
    });
    return { ...view, merchantId: dispute.merchant_id };
  });
}

export async function decideDispute(
  deps: DecideDeps,
  id: string,
  input: { action: "resolve" | "reject" | "escalate"; note?: string; reviewer?: string; actor: Actor },
): Promise<DisputeView & { merchantId: string }> {
  return await deps.db.tx(async (tx) => {
    const d = await disputesDb.lockDispute(tx, id);
    if (!d) throw new AppError("NOT_FOUND", "No such dispute");
    // An unknown id is NOT_FOUND whatever the body; then the note, then the table.
    const note = requireNote(input.note);
    const decidedBy = recordedReviewer(input.actor, input.reviewer);
    const was = before(disputeView(d));
    const moved = await settleDispute(deps, tx, d, input.action, { decidedBy, note });
    const view = disputeView(moved, await disputesDb.listDisputeFiles(tx, [moved.id]));
    await appendAudit({ db: tx, clock: deps.clock }, input.actor, {
      action: `dispute.${input.action}`,
      itemType: "DISPUTE",
      itemId: d.id,
      note,
      before: was,
      after: before(view),
    });
    return { ...view, merchantId: moved.merchant_id };
  });
}
