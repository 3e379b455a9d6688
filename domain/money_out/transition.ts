// The one way a payout or withdrawal changes state: the move must be in its kind's table, it happens
// only from the state the caller saw, and the events reporting it commit in the same transaction, with a
// log line for the operator.
import { moveOutbound, type OutboundPatch, type OutboundRow } from "../../db/outbound.ts";
import type { Deps } from "../deps.ts";
import { emitEvent } from "../webhooks/events.ts";
import { assertOutboundMove } from "./states.ts";
import { type OutboundEvent, outboundEventData } from "./view.ts";

/** Events per arrival state. Payouts also emit the legacy withdrawal.* twins the specification keeps. */
function eventsFor(kind: OutboundRow["kind"], to: string): OutboundEvent[] {
  // A refund's transfer reports through its refund (refund.completed / refund.failed), never as a payout.
  if (kind === "REFUND") return [];
  if (kind === "WITHDRAWAL") {
    const one: Record<string, OutboundEvent> = {
      PENDING_REVIEW: "withdrawal.requested",
      APPROVED: "withdrawal.approved",
      BROADCAST: "withdrawal.broadcast",
      CONFIRMED: "withdrawal.confirmed",
      FAILED: "withdrawal.failed",
    };
    return one[to] ? [one[to]] : [];
  }
  const payout: Record<string, OutboundEvent[]> = {
    PROCESSING: ["payout.approved", "withdrawal.approved"],
    BROADCAST: ["payout.broadcast"],
    CONFIRMED: ["payout.confirmed"],
    FAILED: ["payout.failed"],
  };
  return payout[to] ?? [];
}

export async function emitOutboundEvents(
  deps: Pick<Deps, "db" | "queue" | "clock">,
  row: OutboundRow,
  events: OutboundEvent[],
): Promise<void> {
  for (const type of events) {
    await emitEvent(deps, {
      merchantId: row.merchant_id,
      isSandbox: row.is_sandbox,
      type,
      data: outboundEventData(row, type),
    });
  }
}

/** The events of a freshly accepted item: requested (and its legacy twin), then approved if automatic. */
export async function emitAcceptedEvents(deps: Pick<Deps, "db" | "queue" | "clock">, row: OutboundRow) {
  const requested: OutboundEvent[] = row.kind === "PAYOUT"
    ? ["payout.requested", "withdrawal.requested"]
    : ["withdrawal.requested"];
  await emitOutboundEvents(deps, row, [
    ...requested,
    ...(row.status === "PROCESSING" ? eventsFor("PAYOUT", "PROCESSING") : []),
  ]);
}

export async function transitionOutbound(
  deps: Pick<Deps, "db" | "queue" | "clock" | "log">,
  row: Pick<OutboundRow, "id" | "kind" | "status">,
  to: string,
  patch: OutboundPatch = {},
): Promise<OutboundRow | undefined> {
  assertOutboundMove(row.kind, row.status, to);
  const moved = await moveOutbound(deps.db, row.id, row.status, to, patch, deps.clock.now());
  if (!moved) return undefined;
  await emitOutboundEvents(deps, moved, eventsFor(moved.kind, to));
  deps.log.info("money state change", {
    kind: moved.kind,
    id: moved.id,
    merchantId: moved.merchant_id,
    mode: moved.is_sandbox ? "sandbox" : "live",
    from: row.status,
    to,
    amount: moved.amount,
    txHash: moved.tx_hash,
  });
  return moved;
}
