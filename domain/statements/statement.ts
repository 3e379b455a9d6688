// The balance statement of a merchant's wallets in one currency over a period: the opening balance,
// every change read from the ledger's journals and entries, and the closing balance, which must equal the
// ledger's balance at the period's end (checked: a statement that does not reconcile is never answered).
// Read in one REPEATABLE READ snapshot, so a journal booked meanwhile is either wholly in or wholly out.
import {
  bulkItemsOf,
  outboundDetails,
  payinDetails,
  statementTotals,
  walletMovements,
} from "../../db/statements.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { type Currency, Decimal, formatAmount } from "../money.ts";
import { linesOf, type LineType, referencedIds } from "./lines.ts";
import { parsePeriod, type Period } from "./period.ts";

export type StatementInput = {
  merchantId: string;
  /** `live` or `sandbox`: which of the merchant's two ledgers. */
  mode: "live" | "sandbox";
  currency: Currency;
  /** ISO 8601; the period is [from, to). */
  from: string | Date;
  to: string | Date;
  /** Most wallet movements read; more is VALIDATION_ERROR cause STATEMENT_TOO_LARGE. */
  maxMovements?: number;
  /** Longest period accepted, in days. */
  maxDays?: number;
};

export type StatementLine = {
  at: string;
  type: LineType;
  journalId: string;
  reference: string;
  walletId: string;
  rail: string;
  sourceId: string | null;
  externalRef: string | null;
  gross: string;
  fee: string;
  networkFee: string;
  /** gross - fee - networkFee: what the wallet moved. */
  amount: string;
  balanceAfter: string;
  settlement?: { status: string; txHash: string | null };
};

export type StatementTotals = Record<
  | "payinGross"
  | "deposits"
  | "fees"
  | "networkFees"
  | "payouts"
  | "withdrawals"
  | "refunds"
  | "conversionsOut"
  | "conversionsIn"
  | "bulk"
  | "customerRefunds"
  | "disputes"
  | "other"
  | "net",
  string
>;

export type BalanceStatement = {
  merchantId: string;
  mode: "live" | "sandbox";
  currency: Currency;
  from: string;
  to: string;
  openingBalance: string;
  closingBalance: string;
  /** The ledger's balance of the currency's wallets at `to`: the opening plus the period's entries. */
  ledgerBalance: string;
  wallets: Array<{ id: string; rail: string; balanceNow: string }>;
  totals: StatementTotals;
  lines: StatementLine[];
  generatedAt: string;
};

/** Movements a statement holds at most unless the caller says otherwise (the PDF says fewer). */
export const DEFAULT_MAX_MOVEMENTS = 100_000;

type StatementDeps = Pick<Deps, "db" | "clock">;

export async function balanceStatement(
  deps: StatementDeps,
  input: StatementInput,
): Promise<BalanceStatement> {
  const period: Period = parsePeriod({ from: isoOf(input.from), to: isoOf(input.to) }, {
    maxDays: input.maxDays,
  });
  const maxMovements = input.maxMovements ?? DEFAULT_MAX_MOVEMENTS;
  const q = {
    merchantId: input.merchantId,
    isSandbox: input.mode === "sandbox",
    currency: input.currency,
    ...period,
  };
  const read = await deps.db.tx(async (tx) => {
    // One snapshot for every read (a caller's own transaction already is one for its purposes).
    if (!deps.db.inTransaction) await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    const totals = await statementTotals(tx, q);
    const rows = await walletMovements(tx, { ...q, limit: maxMovements + 1 });
    if (rows.length > maxMovements) {
      throw new AppError("VALIDATION_ERROR", `The period holds more than ${maxMovements} movements`, {
        details: [{ field: "to", reason: `choose a shorter period (at most ${maxMovements} movements)` }],
        reason: "STATEMENT_TOO_LARGE",
      });
    }
    const ids = referencedIds(rows);
    const ctx = {
      payins: await payinDetails(tx, ids.payins),
      outbound: await outboundDetails(tx, ids.outbound),
      bulkItems: await bulkItemsOf(tx, ids.batches),
    };
    return { totals, rows, ctx };
  });
  // The opening balance from the entries on the shorter side of `from` (db/statements.ts says how).
  const balanceNow = read.totals.wallets.reduce((s, w) => s.plus(w.balance), new Decimal(0));
  const opening = read.totals.side === "before"
    ? new Decimal(read.totals.side_sum)
    : balanceNow.minus(read.totals.side_sum);
  const ledgerAtTo = opening.plus(read.totals.in_period);
  const fmt = (v: Decimal.Value) => formatAmount(v, input.currency);
  let running = opening;
  const sums = new Map<string, Decimal>();
  const add = (name: keyof StatementTotals, v: Decimal) =>
    sums.set(name, (sums.get(name) ?? new Decimal(0)).plus(v));
  const lines: StatementLine[] = [];
  for (const row of read.rows) {
    for (const l of linesOf(row, read.ctx)) {
      if (!l.gross.minus(l.fee).minus(l.networkFee).equals(l.amount)) {
        throw new Error(`statement line of ${l.reference} does not add up`);
      }
      running = running.plus(l.amount);
      addToTotals(add, l.type, l);
      lines.push({
        at: l.at.toISOString(),
        type: l.type,
        journalId: l.journalId,
        reference: l.reference,
        walletId: l.walletId,
        rail: l.rail,
        sourceId: l.sourceId,
        externalRef: l.externalRef,
        gross: fmt(l.gross),
        fee: fmt(l.fee),
        networkFee: fmt(l.networkFee),
        amount: fmt(l.amount),
        balanceAfter: fmt(running),
        ...(l.settlement ? { settlement: l.settlement } : {}),
      });
    }
  }
  // The reconciliation: what the lines add up to is what the ledger holds at `to`, to the unit.
  if (!running.equals(ledgerAtTo)) {
    throw new Error(
      `statement of ${input.merchantId} ${input.currency} does not reconcile: ${running} <> ledger ${ledgerAtTo}`,
    );
  }
  add("net", running.minus(opening));
  const totals = Object.fromEntries(
    TOTAL_NAMES.map((n) => [n, fmt(sums.get(n) ?? 0)]),
  ) as StatementTotals;
  return {
    merchantId: input.merchantId,
    mode: input.mode,
    currency: input.currency,
    from: period.from.toISOString(),
    to: period.to.toISOString(),
    openingBalance: fmt(opening),
    closingBalance: fmt(running),
    ledgerBalance: fmt(ledgerAtTo),
    wallets: read.totals.wallets.map((w) => ({ id: w.id, rail: w.rail, balanceNow: fmt(w.balance) })),
    totals,
    lines,
    generatedAt: deps.clock.now().toISOString(),
  };
}

const TOTAL_NAMES: Array<keyof StatementTotals> = [
  "payinGross",
  "deposits",
  "fees",
  "networkFees",
  "payouts",
  "withdrawals",
  "refunds",
  "conversionsOut",
  "conversionsIn",
  "bulk",
  "customerRefunds",
  "disputes",
  "other",
  "net",
];

/**
 * The summary: credits by their gross, fees and network fees apart (as negatives: they lower the
 * balance), money out by what its recipients got; so opening + every total but `net` = closing.
 */
function addToTotals(
  add: (name: keyof StatementTotals, v: Decimal) => void,
  type: LineType,
  l: { gross: Decimal; fee: Decimal; networkFee: Decimal },
) {
  add("fees", l.fee.negated());
  add("networkFees", l.networkFee.negated());
  const bucket: Record<LineType, keyof StatementTotals> = {
    PAYIN: "payinGross",
    DEPOSIT: "deposits",
    PAYOUT: "payouts",
    WITHDRAWAL: "withdrawals",
    PAYOUT_REFUND: "refunds",
    WITHDRAWAL_REFUND: "refunds",
    BULK_REFUND: "refunds",
    CONVERSION_OUT: "conversionsOut",
    CONVERSION_IN: "conversionsIn",
    BULK_ITEM: "bulk",
    BULK_DEBIT: "bulk",
    CUSTOMER_REFUND: "customerRefunds",
    DISPUTE: "disputes",
    OTHER: "other",
  };
  add(bucket[type], l.gross);
}

function isoOf(value: string | Date): string {
  return value instanceof Date ? value.toISOString() : value;
}
