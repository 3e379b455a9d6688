// GET /v1/transactions/export: starts a TRANSACTIONS_CSV export job (domain/exports) for a bounded period.
import type { Caller } from "../auth.ts";
import type { Deps } from "../deps.ts";
import { startExport } from "../exports/jobs.ts";
import type { TransactionsExportParams } from "./export_csv.ts";
import { parseRange } from "./query.ts";

/**
 * GET /v1/transactions/export: both bounds required. A period reaching into the future ends now (the job's
 * creation), so the file says what existed when it was asked for and a late row never slips in mid-way.
 */
export async function startTransactionsExport(
  deps: Pick<Deps, "db" | "clock" | "queue">,
  caller: Caller,
  q: { from: string; to: string },
) {
  const range = parseRange(q, true);
  const requestedBefore = range.before!;
  const now = deps.clock.now();
  const before = requestedBefore.getTime() > now.getTime() ? now : requestedBefore;
  const params: TransactionsExportParams = {
    from: q.from,
    to: q.to,
    fromAt: range.from!.toISOString(),
    beforeAt: before.toISOString(),
  };
  const key = `${range.from!.toISOString()}|${requestedBefore.toISOString()}`;
  return await startExport(deps, caller, { kind: "TRANSACTIONS_CSV", params, key });
}
