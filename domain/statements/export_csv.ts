// The itemized balance statement as CSV (export kind BALANCE_STATEMENT_CSV), beside the transaction list:
// for each currency, an OPENING_BALANCE row, every change of its wallets over [from, before) as the
// statement itemizes it (pay-in credit with its fees, deposit, payout, withdrawal, refund, conversion
// leg, bulk item, other), each with the balance after it, then a CLOSING_BALANCE row. Written page by
// page: the cursor carries the currency, the last movement's keyset and the running balance, so a run
// holds one page and a restarted job goes on where the last chunk ended. The closing row is written only
// if the running balance equals the ledger's balance at `before` (else the run fails and is retried).
import { stringify } from "csv-stringify/sync";
import {
  bulkItemsOf,
  type MovementKeyset,
  outboundDetails,
  payinDetails,
  statementTotals,
  walletMovements,
} from "../../db/statements.ts";
import type { Deps } from "../deps.ts";
import type { ExportKind, ExportScope } from "../exports/kind.ts";
import { type Currency, Decimal, formatAmount } from "../money.ts";
import { neutralizeCell } from "../transactions/export_csv.ts";
import { linesOf, referencedIds } from "./lines.ts";

export const STATEMENT_CSV_COLUMNS = [
  "currency",
  "at",
  "type",
  "journalId",
  "reference",
  "walletId",
  "rail",
  "sourceId",
  "externalRef",
  "gross",
  "fee",
  "networkFee",
  "amount",
  "balanceAfter",
  "settlementStatus",
  "txHash",
] as const;

/** What a BALANCE_STATEMENT_CSV job stores: the bounds as given, the resolved range, the currencies. */
export type StatementExportParams = {
  from: string;
  to: string;
  fromAt: string;
  beforeAt: string;
  currencies: Currency[];
};

type Cursor = {
  /** Index in params.currencies of the currency being written. */
  c: number;
  after: MovementKeyset | null;
  running: string;
  /** The ledger's balance at `before`, read with the opening balance. */
  closing: string;
};

type Db = Pick<Deps, "db">;

/** The opening balance and the ledger's balance at `before`, in one snapshot. */
async function openingOf(deps: Db, scope: ExportScope, currency: Currency, p: StatementExportParams) {
  return await deps.db.tx(async (tx) => {
    if (!deps.db.inTransaction) await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    const t = await statementTotals(tx, {
      ...scope,
      currency,
      from: new Date(p.fromAt),
      to: new Date(p.beforeAt),
    });
    const balanceNow = t.wallets.reduce((s, w) => s.plus(w.balance), new Decimal(0));
    const opening = t.side === "before" ? new Decimal(t.side_sum) : balanceNow.minus(t.side_sum);
    return { opening, closing: opening.plus(t.in_period) };
  });
}

const balanceRow = (currency: Currency, at: string, type: string, balance: Decimal) => [
  currency,
  at,
  type,
  ...Array(10).fill(""),
  formatAmount(balance, currency),
  "",
  "",
];

export const balanceStatementCsv: ExportKind = {
  contentType: "text/csv; charset=utf-8",
  filename(params) {
    const p = params as StatementExportParams;
    return `balance_statement_${p.from.slice(0, 10)}_${p.to.slice(0, 10)}.csv`;
  },
  async nextPage(deps, scope, params, cursor, maxRows) {
    const p = params as StatementExportParams;
    const out: string[][] = [];
    let cur = cursor as Cursor | null;
    const header = cur === null;
    const currency = p.currencies[cur?.c ?? 0];
    if (cur === null || cur.after === null && cur.running === "") {
      const { opening, closing } = await openingOf(deps, scope, currency, p);
      out.push(balanceRow(currency, p.fromAt, "OPENING_BALANCE", opening));
      cur = { c: cur?.c ?? 0, after: null, running: opening.toString(), closing: closing.toString() };
    }
    const rows = await walletMovements(deps.db, {
      ...scope,
      currency,
      from: new Date(p.fromAt),
      to: new Date(p.beforeAt),
      limit: maxRows,
      ...(cur.after ? { after: cur.after } : {}),
    });
    const ids = referencedIds(rows);
    const ctx = {
      payins: await payinDetails(deps.db, ids.payins),
      outbound: await outboundDetails(deps.db, ids.outbound),
      bulkItems: await bulkItemsOf(deps.db, ids.batches),
    };
    let running = new Decimal(cur.running);
    const fmt = (v: Decimal.Value) => formatAmount(v, currency);
    for (const row of rows) {
      for (const l of linesOf(row, ctx)) {
        running = running.plus(l.amount);
        out.push([
          currency,
          l.at.toISOString(),
          l.type,
          l.journalId,
          neutralizeCell(l.reference),
          l.walletId,
          l.rail,
          l.sourceId ?? "",
          neutralizeCell(l.externalRef),
          fmt(l.gross),
          fmt(l.fee),
          fmt(l.networkFee),
          fmt(l.amount),
          fmt(running),
          l.settlement?.status ?? "",
          neutralizeCell(l.settlement?.txHash ?? null),
        ]);
      }
    }
    const last = rows[rows.length - 1];
    const after = last
      ? { atUs: last.at_us, journalId: last.journal_id, walletId: last.wallet_id }
      : cur.after;
    let next: Cursor = { ...cur, after, running: running.toString() };
    let done = false;
    if (rows.length < maxRows) {
      // The currency's last page: the lines must have brought the opening to the ledger's own balance.
      if (!running.equals(cur.closing)) {
        throw new Error(
          `itemized statement ${currency} does not reconcile: ${running} <> ledger ${cur.closing}`,
        );
      }
      out.push(balanceRow(currency, p.beforeAt, "CLOSING_BALANCE", running));
      done = cur.c + 1 >= p.currencies.length;
      next = { c: cur.c + 1, after: null, running: "", closing: "" };
    }
    const text = stringify(out, { header, columns: [...STATEMENT_CSV_COLUMNS] });
    return { text, rows: out.length, cursor: next, done };
  },
};
