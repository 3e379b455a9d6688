// The statements of a history search. A trigram index finds a rare term's rows at once, but the planner
// cannot tell a rare term from a frequent one well enough: estimating a few thousand matches spread over
// the history, it walks the newest rows and filters, and when the matches are old (an old customer's
// e-mail) it reads most of a million rows first (0.9 s measured). So a search asks in two steps, each
// bounded: first among the newest rows only (enough for a frequent term to fill its page), then, if that
// page is not full, through the trigram index alone, ordered by an expression no index provides (so the
// planner cannot choose the walk again).
import type { Db } from "./mod.ts";
import {
  COLUMNS,
  type Keyset,
  keysetClause,
  searchClause,
  type Statement,
  type TransactionFilter,
  type TransactionRow,
  whereOf,
} from "./transactions.ts";

type Page = { limit: number; offset?: number; after?: Keyset };

/** Step 1: the page among the next `window` rows in order (after the keyset position), searched. */
export function windowedSearchStatement(filter: TransactionFilter, page: Page, window: number): Statement {
  const params: unknown[] = [];
  let where = whereOf(filter, params, false);
  if (page.after) where += ` AND ${keysetClause(page.after, params)}`;
  params.push(window);
  const windowParam = `$${params.length}`;
  const search = searchClause(filter.searchPattern!, params);
  params.push(page.limit, page.offset ?? 0);
  return {
    text: `SELECT ${COLUMNS} FROM (
        SELECT * FROM transactions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${windowParam}
      ) recent WHERE ${search}
      ORDER BY created_at DESC, id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  };
}

/** Step 2: the page from every match the trigram index finds, sorted. */
export function indexedSearchStatement(filter: TransactionFilter, page: Page): Statement {
  const params: unknown[] = [];
  let where = whereOf(filter, params);
  if (page.after) where += ` AND ${keysetClause(page.after, params)}`;
  params.push(page.limit, page.offset ?? 0);
  return {
    text: `SELECT ${COLUMNS} FROM transactions WHERE ${where}
      ORDER BY created_at + interval '0 seconds' DESC, id DESC LIMIT $${
      params.length - 1
    } OFFSET $${params.length}`,
    params,
  };
}

/** Matches among the newest `window` rows: when that already reaches the cap, no more counting is needed. */
export function windowedSearchCountStatement(filter: TransactionFilter, window: number): Statement {
  const params: unknown[] = [];
  const where = whereOf(filter, params, false);
  params.push(window);
  const windowParam = `$${params.length}`;
  const search = searchClause(filter.searchPattern!, params);
  return {
    text: `SELECT count(*)::int AS n FROM (
        SELECT search_text FROM transactions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${windowParam}
      ) recent WHERE ${search}`,
    params,
  };
}

/** Matches up to `cap`; run with bitmap scans only (see countSearchMatches), so through the trigram index. */
export function indexedSearchCountStatement(filter: TransactionFilter, cap: number): Statement {
  const params: unknown[] = [];
  const where = whereOf(filter, params);
  params.push(cap);
  return {
    text:
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM transactions WHERE ${where} LIMIT $${params.length}) t`,
    params,
  };
}

/** Rows step 1 reads at least (more for a deep offset page): a term in 1 row of 150 fills a page of 20. */
export const SEARCH_WINDOW = 3_000;
/** Rows the count's first step reads: a term in 1 row of 20 reaches the count's cap there. */
export const SEARCH_COUNT_WINDOW = 20_000;

/** `windows` only for tests, to make each step answer on a small history. */
export async function searchTransactionRows(
  db: Db,
  filter: TransactionFilter,
  page: Page,
  windows = { list: SEARCH_WINDOW, count: SEARCH_COUNT_WINDOW },
): Promise<TransactionRow[]> {
  const window = windows.list + (page.offset ?? 0);
  const first = windowedSearchStatement(filter, page, window);
  const rows = await db.query<TransactionRow>(first.text, first.params, { oneShot: true });
  if (rows.length >= page.limit) return rows;
  const second = indexedSearchStatement(filter, page);
  return await db.query<TransactionRow>(second.text, second.params, { oneShot: true });
}

/** Matches, up to `cap` at least (more may be counted on the way: the caller caps what it shows). */
export async function countSearchMatches(
  db: Db,
  filter: TransactionFilter,
  cap: number,
  windows = { list: SEARCH_WINDOW, count: SEARCH_COUNT_WINDOW },
): Promise<number> {
  const first = windowedSearchCountStatement(filter, windows.count);
  const [recent] = await db.query<{ n: number }>(first.text, first.params, { oneShot: true });
  if (recent.n >= cap) return recent.n;
  // Capped, and with the walks forbidden for this statement: a LIMIT would otherwise let the planner bet
  // on walking the history (or the table) until the cap, and lose when the matches are few or old. The
  // bitmap is built from the index, and the heap is read only until the cap.
  const capped = indexedSearchCountStatement(filter, cap);
  return await db.tx(async (tx) => {
    await tx.query(
      "SELECT set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true)",
    );
    const [row] = await tx.query<{ n: number }>(capped.text, capped.params, { oneShot: true });
    return row.n;
  });
}
