// Turns the ledger's wallet movements into statement lines: one per journal and wallet (a bulk batch's
// debit, one per item), each with gross, fee and network fee such that gross - fee - networkFee is
// exactly what the wallet moved. What a journal kind means is read from its postings and the record it
// names (pay-in, payout, withdrawal, batch); a kind this file does not know is an OTHER line of its
// full amount, so the statement still reconciles.
import type { BulkItemDetail, OutboundDetail, PayinDetail, WalletMovementRow } from "../../db/statements.ts";
import { Decimal } from "../money.ts";

export const LINE_TYPES = [
  "PAYIN",
  "DEPOSIT",
  "PAYOUT",
  "WITHDRAWAL",
  "PAYOUT_REFUND",
  "WITHDRAWAL_REFUND",
  "CONVERSION_OUT",
  "CONVERSION_IN",
  "BULK_ITEM",
  "BULK_DEBIT",
  "BULK_REFUND",
  "CUSTOMER_REFUND",
  "DISPUTE",
  "OTHER",
] as const;
export type LineType = typeof LINE_TYPES[number];

/** Amounts as Decimals; the statement formats them once it has the running balance. */
export type RawLine = {
  at: Date;
  journalId: string;
  reference: string;
  type: LineType;
  walletId: string;
  rail: string;
  /** The record behind the movement: pay-in, payout or withdrawal, conversion, bulk batch or item. */
  sourceId: string | null;
  /** The merchant's own reference of that record, when it has one. */
  externalRef: string | null;
  gross: Decimal;
  fee: Decimal;
  networkFee: Decimal;
  amount: Decimal;
  /** Payouts and withdrawals: their state now, their chain or provider reference and their fee. */
  settlement?: { status: string; txHash: string | null };
};

export type LineContext = {
  payins: Map<string, PayinDetail>;
  outbound: Map<string, OutboundDetail>;
  bulkItems: Map<string, BulkItemDetail[]>;
};

const ZERO = new Decimal(0);

/** The record ids the movements name, so their details are read in one query per table. */
export function referencedIds(rows: WalletMovementRow[]) {
  const payins = new Set<string>();
  const outbound = new Set<string>();
  const batches = new Set<string>();
  for (const r of rows) {
    const m = r.metadata ?? {};
    if (typeof m.payinId === "string") payins.add(m.payinId);
    if (typeof m.outboundId === "string") outbound.add(m.outboundId);
    if (r.kind === "BULK_DEBIT" && typeof m.bulkPaymentId === "string") batches.add(m.bulkPaymentId);
  }
  return { payins: [...payins], outbound: [...outbound], batches: [...batches] };
}

export function linesOf(row: WalletMovementRow, ctx: LineContext): RawLine[] {
  const amount = new Decimal(row.amount);
  const fees = new Decimal(row.fees);
  const m = row.metadata ?? {};
  const base = {
    at: new Date(row.created_at),
    journalId: row.journal_id,
    reference: row.reference,
    walletId: row.wallet_id,
    rail: row.rail,
    amount,
  };
  const plain = (type: LineType, sourceId: string | null, externalRef: string | null = null): RawLine => ({
    ...base,
    type,
    sourceId,
    externalRef,
    gross: amount,
    fee: ZERO,
    networkFee: ZERO,
  });
  switch (row.kind) {
    case "PAYIN_SETTLEMENT":
    case "DEPOSIT": {
      if (amount.lte(0)) return [plain("OTHER", null)];
      const payin = typeof m.payinId === "string" ? ctx.payins.get(m.payinId) : undefined;
      // A direct top-up pays only the network fee; a pay-in (or its late funds) its network and service fees.
      const networkPart = m.kind === "DIRECT"
        ? fees
        : Decimal.min(new Decimal(payin?.network_fee ?? 0), fees);
      return [{
        ...base,
        type: row.kind === "PAYIN_SETTLEMENT" ? "PAYIN" : "DEPOSIT",
        sourceId: payin?.id ?? (typeof m.txId === "string" ? `${m.txId}:${m.logIndex}` : null),
        externalRef: payin?.external_ref ?? null,
        gross: amount.plus(fees),
        fee: fees.minus(networkPart),
        networkFee: networkPart,
      }];
    }
    case "OUTBOUND_RESERVE":
    case "OUTBOUND_RELEASE":
      return [outboundLine(row, base, ctx, plain)];
    case "CONVERSION": {
      const id = typeof m.conversionId === "string" ? m.conversionId : null;
      if (amount.lt(0)) return [plain("CONVERSION_OUT", id)];
      return [{ ...plain("CONVERSION_IN", id), gross: amount.plus(fees), fee: fees }];
    }
    case "BULK_DEBIT":
      return bulkLines(row, base, ctx, plain);
    case "BULK_RELEASE":
    case "BULK_ITEM_RELEASE":
      return [plain("BULK_REFUND", typeof m.bulkPaymentId === "string" ? m.bulkPaymentId : bulkItemOf(row))];
    // Money back to a customer: reserved when asked, back in the wallet when rejected, cancelled or failed.
    case "REFUND_RESERVE":
    case "REFUND_RETURN":
      return [plain("CUSTOMER_REFUND", typeof m.refundId === "string" ? m.refundId : null)];
    // A chargeback's hold (or a shortfall collected later) and its release when the merchant wins.
    case "DISPUTE_HOLD":
    case "DISPUTE_COLLECT":
    case "DISPUTE_RELEASE":
      return [plain("DISPUTE", typeof m.disputeId === "string" ? m.disputeId : null)];
    default:
      return [plain("OTHER", null)];
  }
}

type Base = Pick<RawLine, "at" | "journalId" | "reference" | "walletId" | "rail" | "amount">;
type Plain = (type: LineType, sourceId: string | null, externalRef?: string | null) => RawLine;

/** `bulk:<item>:<attempt>:release` names its item. */
function bulkItemOf(row: WalletMovementRow): string | null {
  return /^bulk:(bli_[^:]+):/.exec(row.reference)?.[1] ?? null;
}

function outboundLine(row: WalletMovementRow, base: Base, ctx: LineContext, plain: Plain): RawLine {
  const id = typeof row.metadata?.outboundId === "string" ? row.metadata.outboundId : null;
  const o = id ? ctx.outbound.get(id) : undefined;
  const withdrawal = o?.kind === "WITHDRAWAL" || row.metadata?.kind === "WITHDRAWAL";
  const settlement = o ? { status: o.status, txHash: o.tx_hash } : undefined;
  if (row.kind === "OUTBOUND_RELEASE") {
    // A bulk item paid as a payout gives its share back to the wallet: a bulk refund of that item.
    if (o?.bulk_item_id) return { ...plain("BULK_REFUND", o.bulk_item_id), settlement };
    // The reserved amount, fee included, comes back: the payout failed, was rejected or cancelled.
    return { ...plain(withdrawal ? "WITHDRAWAL_REFUND" : "PAYOUT_REFUND", id, o?.external_ref), settlement };
  }
  const line = { ...plain(withdrawal ? "WITHDRAWAL" : "PAYOUT", id, o?.external_ref), settlement };
  if (!o) return line;
  // debited = what the recipient gets + the fee (payout: amount + fee; withdrawal: amount, fee inside).
  const net = new Decimal(o.net_amount);
  const fee = new Decimal(o.fee);
  if (!net.plus(fee).negated().equals(base.amount)) return line;
  return { ...line, gross: net.negated(), fee };
}

function bulkLines(row: WalletMovementRow, base: Base, ctx: LineContext, plain: Plain): RawLine[] {
  const batchId = typeof row.metadata?.bulkPaymentId === "string" ? row.metadata.bulkPaymentId : null;
  const items = batchId ? ctx.bulkItems.get(batchId) ?? [] : [];
  const total = items.reduce((s, i) => s.plus(i.amount).plus(i.fee), ZERO);
  // The execution's debit is every item's amount and fee: itemized. A retry's debit is what the failed
  // items' releases returned: one line, since which items it re-pays is not in the journal.
  if (!batchId || items.length === 0 || !total.negated().equals(base.amount)) {
    return [plain("BULK_DEBIT", batchId)];
  }
  return items.map((i) => ({
    ...base,
    type: "BULK_ITEM" as const,
    sourceId: i.id,
    externalRef: null,
    gross: new Decimal(i.amount).negated(),
    fee: new Decimal(i.fee),
    networkFee: ZERO,
    amount: new Decimal(i.amount).plus(i.fee).negated(),
  }));
}
