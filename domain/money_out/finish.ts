// The two ways reserved money leaves IN_FLIGHT, each exactly once and in the same transaction as the
// state move: settled out of the gateway on confirmation, or released back to the wallet on failure,
// rejection or cancellation. The row lock and the journal's unique reference make a replay a no-op.
import { findSystemAccount, findWallet } from "../../db/ledger.ts";
import { lockOutbound, type OutboundPatch, type OutboundRow } from "../../db/outbound.ts";
import type { Deps } from "../deps.ts";
import { postJournal } from "../ledger.ts";
import { Decimal } from "../money.ts";
import { assertOutboundMove, canMoveOutbound } from "./states.ts";
import { transitionOutbound } from "./transition.ts";

type FinishDeps = Pick<Deps, "db" | "queue" | "clock" | "log">;

/**
 * The owner of REFUND transfers (domain/refunds/usdt.ts registers itself; money_out cannot import refunds).
 * Their money is the refund's reservation, so the owner books the end in the transfer's transaction.
 */
export type RefundTransferOwner = {
  settled(deps: FinishDeps, row: OutboundRow): Promise<void>;
  released(deps: FinishDeps, row: OutboundRow): Promise<void>;
};
let refundOwner: RefundTransferOwner | undefined;
export function registerRefundTransferOwner(owner: RefundTransferOwner): void {
  refundOwner = owner;
}
function ownerOf(row: OutboundRow): RefundTransferOwner {
  if (!refundOwner) throw new Error(`no owner registered for refund transfer ${row.id}`);
  return refundOwner;
}

/**
 * Returns the reserved amount to the wallet and moves the item to `to` (FAILED, REJECTED, CANCELLED).
 * `expectFrom` guards against acting on a state the caller did not see; undefined when nothing moved.
 */
export async function releaseOutbound(
  deps: FinishDeps,
  input: { id: string; to: string; patch: OutboundPatch; expectFrom?: readonly string[]; strict?: boolean },
): Promise<OutboundRow | undefined> {
  return await deps.db.tx(async (tx) => {
    const row = await lockOutbound(tx, input.id);
    if (!row) return undefined;
    if (input.expectFrom && !input.expectFrom.includes(row.status)) {
      if (input.strict) assertOutboundMove(row.kind, row.status, input.to);
      return undefined;
    }
    if (!canMoveOutbound(row.kind, row.status, input.to)) {
      if (input.strict) assertOutboundMove(row.kind, row.status, input.to);
      return undefined;
    }
    if (row.kind === "REFUND") {
      const moved = await transitionOutbound({ ...deps, db: tx }, row, input.to, input.patch);
      if (moved) await ownerOf(row).released({ ...deps, db: tx }, moved);
      return moved;
    }
    const wallet = await findWallet(tx, row.merchant_id, row.is_sandbox, row.currency, row.wallet_rail);
    const inFlight = await findSystemAccount(tx, "IN_FLIGHT", row.is_sandbox, row.wallet_rail);
    let moved: OutboundRow | undefined;
    await postJournal(tx, {
      reference: `outbound:${row.id}:release`,
      kind: "OUTBOUND_RELEASE",
      merchantId: row.merchant_id,
      isSandbox: row.is_sandbox,
      postings: [
        { accountId: inFlight.id, amount: new Decimal(row.debited).negated() },
        { accountId: wallet!.id, amount: row.debited },
      ],
      metadata: { outboundId: row.id, to: input.to },
    }, async (jtx) => {
      moved = await transitionOutbound({ ...deps, db: jtx }, row, input.to, input.patch);
    });
    return moved;
  });
}

/**
 * Books the confirmed transfer out of the gateway (recipient + fee) and moves the item to CONFIRMED.
 * `txHash` is the chain's transaction id (USDT) or the provider's reference (XOF, stored as provider_ref).
 */
export async function settleOutbound(
  deps: FinishDeps,
  input: { id: string; txHash: string },
): Promise<OutboundRow | undefined> {
  return await deps.db.tx(async (tx) => {
    const row = await lockOutbound(tx, input.id);
    if (!row || !canMoveOutbound(row.kind, row.status, "CONFIRMED")) return undefined;
    if (row.kind === "REFUND") {
      const moved = await transitionOutbound({ ...deps, db: tx }, row, "CONFIRMED", {
        tx_hash: input.txHash,
        confirmed_at: deps.clock.now(),
      });
      if (moved) await ownerOf(row).settled({ ...deps, db: tx }, moved);
      return moved;
    }
    const rail = row.wallet_rail;
    const world = await findSystemAccount(tx, "WORLD", row.is_sandbox, rail);
    const fees = await findSystemAccount(tx, "FEES", row.is_sandbox, rail);
    const inFlight = await findSystemAccount(tx, "IN_FLIGHT", row.is_sandbox, rail);
    let moved: OutboundRow | undefined;
    await postJournal(tx, {
      reference: `outbound:${row.id}:settle`,
      kind: "OUTBOUND_SETTLE",
      merchantId: row.merchant_id,
      isSandbox: row.is_sandbox,
      postings: [
        { accountId: inFlight.id, amount: new Decimal(row.debited).negated() },
        { accountId: world.id, amount: row.net_amount },
        { accountId: fees.id, amount: row.fee },
      ].filter((p) => !new Decimal(p.amount).isZero()),
      metadata: { outboundId: row.id, txHash: input.txHash },
    }, async (jtx) => {
      moved = await transitionOutbound({ ...deps, db: jtx }, row, "CONFIRMED", {
        // XOF: the provider's reference, also shown as txHash like fiat pay-ins do.
        tx_hash: input.txHash,
        ...(row.currency === "XOF" ? { provider_ref: input.txHash } : {}),
        confirmed_at: deps.clock.now(),
      });
    });
    return moved;
  });
}
