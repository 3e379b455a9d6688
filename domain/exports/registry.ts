// The export forms a job may build, by `kind`. The itemized balance statement will be a second entry.
import type { ExportKind } from "./kind.ts";
import { transactionsCsv } from "../transactions/export_csv.ts";

export const EXPORT_KINDS = {
  TRANSACTIONS_CSV: transactionsCsv,
} satisfies Record<string, ExportKind>;

export type ExportKindName = keyof typeof EXPORT_KINDS;

export function exportKind(name: string): ExportKind | undefined {
  return (EXPORT_KINDS as Record<string, ExportKind>)[name];
}
