// What payouts and withdrawals look like to merchants: API records and webhook payloads (Part 2's
// payload table), all built from one row so the API and the webhooks never disagree.
import type { OutboundRow } from "../../db/outbound.ts";
import { effectiveFees } from "../fees.ts";
import { formatAmount } from "../money.ts";

const usdt = (v: string) => formatAmount(v, "USDT_TRC20");
/** Amounts in the item's own currency: 6 decimals for USDT, whole francs for XOF. */
const money = (row: OutboundRow, v: string) => formatAmount(v, row.currency === "XOF" ? "XOF" : "USDT_TRC20");
const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** What a merchant reads about why an accepted item is not on its way yet. */
const WAITING_MESSAGES: Record<string, string> = {
  HOT_WALLET_FUNDS: "The gateway's hot wallet is being refilled from customer deposits (a sweep); " +
    "the transfer is signed and sent as soon as it covers this amount. Nothing is needed from you.",
};

/** `waiting` of an item still to be sent: why it waits and since when; null once it is on its way. */
export function waitingView(row: OutboundRow) {
  if (!row.waiting_reason || !["PROCESSING", "APPROVED", "BROADCAST"].includes(row.status)) return null;
  return {
    reason: row.waiting_reason,
    message: WAITING_MESSAGES[row.waiting_reason] ?? row.waiting_reason,
    since: iso(row.waiting_since)!,
  };
}

/** POST/GET /v1/payout `data`: the specification's fields, then what a merchant needs to follow it. */
export function payoutView(row: OutboundRow, feeSchedule: Record<string, string> | null) {
  const fees = effectiveFees(feeSchedule);
  return {
    transactionId: row.id,
    status: row.status,
    processingFee: usdt(row.fee),
    requiresManualApproval: row.requires_manual_approval,
    currentPayinFee: `${fees.usdtServicePercent}%`,
    currentTier: "STANDARD",
    amount: usdt(row.amount),
    totalDebited: usdt(row.debited),
    destinationAddress: row.destination_address,
    currency: row.currency,
    chain: row.chain,
    externalRef: row.external_ref,
    metadata: row.metadata,
    txHash: row.tx_hash,
    failureReason: row.failure_reason,
    isSandbox: row.is_sandbox,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
    approvedAt: iso(row.approved_at),
    broadcastAt: iso(row.broadcast_at),
    confirmedAt: iso(row.confirmed_at),
    failedAt: iso(row.failed_at),
    cancelledAt: iso(row.cancelled_at),
    waiting: waitingView(row),
  };
}

/** GET/POST /v1/withdrawals `data`. */
export function withdrawalView(row: OutboundRow) {
  return {
    id: row.id,
    amount: money(row, row.amount),
    fee: money(row, row.fee),
    netAmount: money(row, row.net_amount),
    destinationAddress: row.destination_address,
    whitelistAddressId: row.whitelist_entry_id,
    rail: row.wallet_rail,
    fiatDestinationId: row.fiat_destination_id,
    providerRef: row.provider_ref,
    status: row.status,
    currency: row.currency,
    chain: row.chain,
    txHash: row.tx_hash,
    failureReason: row.failure_reason,
    isSandbox: row.is_sandbox,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
    approvedAt: iso(row.approved_at),
    confirmedAt: iso(row.confirmed_at),
    failedAt: iso(row.failed_at),
    cancelledAt: iso(row.cancelled_at),
    waiting: waitingView(row),
  };
}

export type OutboundEvent =
  | "payout.requested"
  | "payout.approved"
  | "payout.broadcast"
  | "payout.confirmed"
  | "payout.failed"
  | "withdrawal.requested"
  | "withdrawal.approved"
  | "withdrawal.broadcast"
  | "withdrawal.confirmed"
  | "withdrawal.failed";

/** Payloads of Part 2 where it lists them; the others carry the same facts in the same names. */
export function outboundEventData(row: OutboundRow, event: OutboundEvent): Record<string, unknown> {
  if (row.kind === "WITHDRAWAL") {
    const base = {
      id: row.id,
      amount: money(row, row.amount),
      fee: money(row, row.fee),
      netAmount: money(row, row.net_amount),
      destinationAddress: row.destination_address,
      currency: row.currency,
      chain: row.chain,
      status: row.status,
    };
    switch (event) {
      case "withdrawal.approved":
        return { ...base, approvedAt: iso(row.approved_at) };
      case "withdrawal.broadcast":
        return { ...base, txHash: row.tx_hash, broadcastAt: iso(row.broadcast_at) };
      case "withdrawal.confirmed":
        return { ...base, txHash: row.tx_hash, confirmedAt: iso(row.confirmed_at) };
      case "withdrawal.failed": {
        const { fee: _fee, netAmount: _net, ...rest } = base;
        return { ...rest, reason: row.failure_reason, failedAt: iso(row.failed_at) };
      }
      default:
        return { ...base, createdAt: iso(row.created_at) };
    }
  }
  const base = {
    transactionId: row.id,
    destinationAddress: row.destination_address,
    amount: usdt(row.amount),
    fee: usdt(row.fee),
    currency: row.currency,
    chain: row.chain,
    externalRef: row.external_ref,
    status: row.status,
    metadata: row.metadata,
  };
  switch (event) {
    case "payout.confirmed":
      return { ...base, txHash: row.tx_hash, confirmedAt: iso(row.confirmed_at) };
    case "payout.failed": {
      const { fee: _fee, ...rest } = base;
      return { ...rest, reason: row.failure_reason, failedAt: iso(row.failed_at) };
    }
    case "payout.broadcast":
      return { ...base, txHash: row.tx_hash, broadcastAt: iso(row.broadcast_at) };
    case "payout.approved":
    case "withdrawal.approved":
      // The legacy withdrawal.* twin of a payout event also names it `id`, as withdrawal payloads do.
      return { ...base, id: row.id, approvedAt: iso(row.approved_at) };
    default:
      return {
        ...base,
        id: row.id,
        requiresManualApproval: row.requires_manual_approval,
        createdAt: iso(row.created_at),
      };
  }
}
