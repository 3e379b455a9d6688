// The transaction list as CSV (export kind TRANSACTIONS_CSV): oldest first over [from, before), one page
// of rows at a time through csv-stringify, cells a spreadsheet would run as a formula neutralised.
import { stringify } from "csv-stringify/sync";
import { type Keyset, type TransactionRow, transactionRowsAfter } from "../../db/transactions.ts";
import type { ExportKind } from "../exports/kind.ts";
import { exactAmount } from "./view.ts";

export const CSV_COLUMNS = [
  "id",
  "type",
  "status",
  "paymentMethod",
  "walletRail",
  "currency",
  "amount",
  "amountReceived",
  "fee",
  "feeCurrency",
  "netAmount",
  "toCurrency",
  "toWalletRail",
  "toAmount",
  "externalRef",
  "customerName",
  "customerEmail",
  "customerPhone",
  "recipientName",
  "destination",
  "note",
  "txHash",
  "batchId",
  "failureReason",
  "createdAt",
  "updatedAt",
] as const;

/**
 * Text that a spreadsheet would take for a formula (it starts with =, +, -, @, a tab or a carriage
 * return) is written with a leading apostrophe, which spreadsheets show as text. Amounts and dates are
 * ours and never pass through here.
 */
export function neutralizeCell(value: string | null): string {
  if (value === null) return "";
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

const amountCell = (value: string | null, currency: string | null) =>
  value === null || currency === null ? "" : exactAmount(value, currency);

export function csvRow(r: TransactionRow): string[] {
  const text = neutralizeCell;
  return [
    r.id,
    r.type,
    r.status,
    r.payment_method ?? "",
    r.wallet_rail,
    r.currency,
    exactAmount(r.amount, r.currency),
    amountCell(r.amount_received, r.currency),
    exactAmount(r.fee, r.fee_currency),
    r.fee_currency,
    exactAmount(r.net_amount, r.currency),
    r.to_currency ?? "",
    r.to_wallet_rail ?? "",
    amountCell(r.to_amount, r.to_currency),
    text(r.external_ref),
    text(r.customer_name),
    text(r.customer_email),
    text(r.customer_phone),
    text(r.recipient_name),
    text(r.destination),
    text(r.note),
    text(r.tx_hash),
    r.batch_id ?? "",
    text(r.failure_reason),
    r.created_at.toISOString(),
    r.updated_at.toISOString(),
  ];
}

/** What a TRANSACTIONS_CSV job stores: the bounds as given, and the resolved half-open range. */
export type TransactionsExportParams = { from: string; to: string; fromAt: string; beforeAt: string };
type Params = TransactionsExportParams;
type Cursor = { at: number; id: string } | null;

export const transactionsCsv: ExportKind = {
  contentType: "text/csv; charset=utf-8",
  filename(params) {
    const p = params as Params;
    return `transactions_${p.from.slice(0, 10)}_${p.to.slice(0, 10)}.csv`;
  },
  async nextPage(deps, scope, params, cursor, maxRows) {
    const p = params as Params;
    const c = cursor as Cursor;
    const after: Keyset | null = c ? { createdAt: new Date(c.at), id: c.id } : null;
    const rows = await transactionRowsAfter(
      deps.db,
      { ...scope, from: new Date(p.fromAt), before: new Date(p.beforeAt) },
      after,
      maxRows,
    );
    const text = stringify(rows.map(csvRow), { header: after === null, columns: [...CSV_COLUMNS] });
    const last = rows[rows.length - 1];
    return {
      text,
      rows: rows.length,
      cursor: last ? { at: last.created_at.getTime(), id: last.id } : c,
      done: rows.length < maxRows,
    };
  },
};
