// What an export form provides to the export job machinery (domain/exports/run.ts): how to write its
// next page of rows after a position, and how its file is named. A form is added by writing one of
// these and naming it in domain/exports/registry.ts; jobs, chunks, leases, status and download are shared.
import type { Deps } from "../deps.ts";

export type ExportScope = { merchantId: string; isSandbox: boolean };

/** One page of the file: its text (the header comes with the first), its rows, and where it ended. */
export type ExportPage = { text: string; rows: number; cursor: unknown; done: boolean };

export interface ExportKind {
  /** A text type (files are stored and sent as UTF-8 text), e.g. `text/csv; charset=utf-8`. */
  contentType: string;
  /** The download's file name, from the job's stored params. */
  filename(params: Record<string, unknown>): string;
  /**
   * The rows after `cursor` (null: from the start, header included), at most `maxRows`, in a stable
   * order, encoded. `cursor` must be JSON: it is stored with the job and handed back on the next call,
   * possibly by another process after a restart.
   */
  nextPage(
    deps: Pick<Deps, "db">,
    scope: ExportScope,
    params: Record<string, unknown>,
    cursor: unknown,
    maxRows: number,
  ): Promise<ExportPage>;
}
