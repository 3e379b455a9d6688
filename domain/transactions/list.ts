// GET /v1/transactions and /v1/transactions/:id: the caller's own history in the caller's mode (a live
// key reads live rows, a sandbox key sandbox rows), never anyone else's.
import { countTransactionRows, findTransactionRow, listTransactionRows } from "../../db/transactions.ts";
import { countSearchMatches, type SearchMemo, searchTransactionRows } from "../../db/transactions_search.ts";
import type { Caller } from "../auth.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { COUNT_CAP, encodeCursor, isTransactionId, type ListQuery, planList } from "./query.ts";
import { type TransactionView, transactionView } from "./view.ts";

export type TransactionPage = {
  items: TransactionView[];
  meta: {
    page: number | null;
    limit: number;
    total: number;
    totalExact: boolean;
    totalPages: number;
    hasNext: boolean;
    hasPrev: boolean;
    nextCursor: string | null;
  };
};

const scopeOf = (caller: Caller) => ({ merchantId: caller.merchantId, isSandbox: caller.isSandbox });

export async function listTransactions(
  deps: Pick<Deps, "db">,
  caller: Caller,
  q: ListQuery,
): Promise<TransactionPage> {
  const plan = planList(scopeOf(caller), q);
  // One row more than shown says whether a next page exists.
  const searching = plan.filter.searchPattern !== undefined;
  // What the page's search learns (its probe) serves the count too.
  const memo: SearchMemo = {};
  const page = { limit: plan.limit + 1, offset: plan.offset, after: plan.after };
  const rows = searching
    ? await searchTransactionRows(deps.db, plan.filter, page, undefined, memo)
    : await listTransactionRows(deps.db, plan.filter, page);
  const hasNext = rows.length > plan.limit;
  // An offset page that ends the list says the total itself (a rare search term then reads its index
  // once; an empty first page says 0); otherwise count, stopping at the cap.
  const counted = plan.page !== null && !hasNext && (rows.length > 0 || plan.offset === 0)
    ? plan.offset + rows.length
    : searching
    ? await countSearchMatches(deps.db, plan.filter, COUNT_CAP + 1, undefined, memo)
    : await countTransactionRows(deps.db, plan.filter, COUNT_CAP + 1);
  const shown = hasNext ? rows.slice(0, plan.limit) : rows;
  const last = shown[shown.length - 1];
  const total = Math.min(counted, COUNT_CAP);
  return {
    items: shown.map(transactionView),
    meta: {
      page: plan.page,
      limit: plan.limit,
      total,
      totalExact: counted <= COUNT_CAP,
      totalPages: Math.ceil(total / plan.limit),
      hasNext,
      hasPrev: plan.page === null ? true : plan.page > 1,
      nextCursor: hasNext && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
    },
  };
}

export async function getTransaction(
  deps: Pick<Deps, "db">,
  caller: Caller,
  id: string,
): Promise<TransactionView> {
  const row = isTransactionId(id) ? await findTransactionRow(deps.db, scopeOf(caller), id) : undefined;
  if (!row) throw new AppError("NOT_FOUND", "Transaction not found");
  return transactionView(row);
}
