// The export forms a job may build, by `kind`: the transaction list and the itemized balance statement.
import type { ExportKind } from "./kind.ts";
import { transactionsCsv } from "../transactions/export_csv.ts";
import { balanceStatementCsv } from "../statements/export_csv.ts";

export const EXPORT_KINDS = {
  TRANSACTIONS_CSV: transactionsCsv,
  BALANCE_STATEMENT_CSV: balanceStatementCsv,
} satisfies Record<string, ExportKind>;

export type ExportKindName = keyof typeof EXPORT_KINDS;

export function exportKind(name: string): ExportKind | undefined {
  return (EXPORT_KINDS as Record<string, ExportKind>)[name];
}
