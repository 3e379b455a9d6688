// GET /v1/transactions/export: starts a TRANSACTIONS_CSV export job (domain/exports) for a bounded period,
// or with form=balance_statement a BALANCE_STATEMENT_CSV job (the itemized statement, per currency).
import type { Caller } from "../auth.ts";
import type { Deps } from "../deps.ts";
import { startExport } from "../exports/jobs.ts";
import type { TransactionsExportParams } from "./export_csv.ts";
import { parseRange, TRANSACTION_CURRENCIES } from "./query.ts";
import { AppError } from "../errors.ts";
import type { Currency } from "../money.ts";
import type { StatementExportParams } from "../statements/export_csv.ts";

/**
 * GET /v1/transactions/export: both bounds required. A period reaching into the future ends now (the job's
 * creation), so the file says what existed when it was asked for and a late row never slips in mid-way.
 */
export async function startTransactionsExport(
  deps: Pick<Deps, "db" | "clock" | "queue">,
  caller: Caller,
  q: { from: string; to: string; form?: "transactions" | "balance_statement"; currency?: Currency },
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
  if (q.form === "balance_statement") {
    const currencies = q.currency ? [q.currency] : [...TRANSACTION_CURRENCIES];
    const statement: StatementExportParams = { ...params, currencies };
    return await startExport(deps, caller, {
      kind: "BALANCE_STATEMENT_CSV",
      params: statement,
      key: `${key}|${currencies.join(",")}`,
    });
  }
  if (q.currency !== undefined) {
    throw new AppError("VALIDATION_ERROR", "currency applies to form=balance_statement only", {
      details: [{ field: "currency", reason: "the transaction list export has every currency" }],
    });
  }
  return await startExport(deps, caller, { kind: "TRANSACTIONS_CSV", params, key });
}
