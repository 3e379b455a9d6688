// The statements of a history search. A trigram index finds a rare term's rows at once, but the planner
// cannot tell a rare term from a frequent one well enough: estimating a few thousand matches spread over
// the history, it walks the newest rows and filters, and when the matches are old (an old customer's
// e-mail) it reads most of a million rows first (0.9 s measured). So a search asks in two steps, each
// bounded: first among the newest rows only (enough for a frequent term to fill its page), then, if that
// page is not full, through the trigram index alone, ordered by an expression no index provides (so the
// planner cannot choose the walk again).
//
// Step 2 alone costs in proportion to every match: a term shared by tens of thousands of old rows (a
// reference prefix, ORD-21-4) read all 45,000 of them and sorted them (about 200 ms at a million rows). So
// between the two, a probe (issue 21, migration 052): a few dozen short walks spread evenly over the
// period find the newest sampled match, if the matches are dense enough somewhere to be sampled. The page
// is then the matches newer than that row (the trigram index ANDed with a BRIN range on created_at, so
// only the heap pages of that recent span are read) followed by a short walk down from it; if the two do
// not fill the page, step 2 answers as before. The probe runs only when the planner estimates at least
// 1,000 matches (a rare term goes straight to step 2, cheap for it). The count reuses what the page found,
// and starts from the probe's row when there is one: for an old shared prefix it reaches the cap there,
// where the newest rows hold no match at all. Once the probe's row is known, the two parts of the page
// run at once on two connections (the trigram scan is the slow one).
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

/** Walks of the probe, spread evenly in time over the period (each from a point down). */
export const PROBE_POINTS = 32;
/** Rows each probe walk reads: a term in 1 row of 30 over a thirty-second of the period is sampled. */
export const PROBE_ROWS = 32;

/**
 * The newest match among PROBE_POINTS walks of PROBE_ROWS rows each, from points evenly spaced between
 * the oldest and the newest row the filter (and the keyset position) allows; none when no walk met one.
 */
export function probeStatement(
  filter: TransactionFilter,
  after: Keyset | undefined,
  probe: { points: number; rows: number },
): Statement {
  const params: unknown[] = [];
  let where = whereOf(filter, params, false);
  if (after) where += ` AND ${keysetClause(after, params)}`;
  params.push(probe.points);
  const points = `$${params.length}`;
  params.push(probe.rows);
  const rows = `$${params.length}`;
  const search = searchClause(filter.searchPattern!, params);
  return {
    text: `WITH bounds AS (
        SELECT (SELECT created_at FROM transactions WHERE ${where} ORDER BY created_at, id LIMIT 1) AS lo,
               (SELECT created_at FROM transactions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT 1) AS hi
      ), points AS (
        SELECT hi - (hi - lo) * (k::float8 / ${points}::int) AS at
          FROM bounds, generate_series(0, ${points}::int - 1) AS k WHERE lo IS NOT NULL
      )
      SELECT w.created_at, w.id FROM points CROSS JOIN LATERAL (
          SELECT created_at, id, search_text FROM transactions WHERE ${where} AND created_at <= points.at
           ORDER BY created_at DESC, id DESC LIMIT ${rows}::int
        ) w
       WHERE ${search.replace("search_text", "w.search_text")}
       ORDER BY w.created_at DESC, w.id DESC LIMIT 1`,
    params,
  };
}

/** Matches strictly newer than `pivot` (the page's first part), through the trigram index and a BRIN range. */
export function newerSearchStatement(filter: TransactionFilter, page: Page, pivot: Keyset): Statement {
  const params: unknown[] = [];
  let where = whereOf(filter, params);
  if (page.after) where += ` AND ${keysetClause(page.after, params)}`;
  params.push(pivot.createdAt, pivot.id);
  const [at, id] = [`$${params.length - 1}`, `$${params.length}`];
  params.push(page.limit + (page.offset ?? 0));
  return {
    text: `SELECT ${COLUMNS}, count(*) OVER ()::int AS newer_total FROM transactions
       WHERE ${where} AND created_at >= ${at} AND (created_at, id) > (${at}, ${id})
      ORDER BY created_at + interval '0 seconds' DESC, id DESC LIMIT $${params.length}`,
    params,
  };
}

/** Runs `s` with bitmap scans only: the trigram index (ANDed with the BRIN range when given), never a walk. */
async function bitmapOnly<T>(db: Db, s: Statement): Promise<T[]> {
  return await db.tx(async (tx) => {
    await tx.query(
      "SELECT set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true)",
    );
    return await tx.query<T>(s.text, s.params, { oneShot: true });
  });
}

async function probe(
  db: Db,
  filter: TransactionFilter,
  after: Keyset | undefined,
  sizes: { points: number; rows: number },
): Promise<Keyset | undefined> {
  const s = probeStatement(filter, after, sizes);
  const [hit] = await db.query<{ created_at: Date; id: string }>(s.text, s.params, { oneShot: true });
  return hit ? { createdAt: hit.created_at, id: hit.id } : undefined;
}

/**
 * Where a walk of rows in order (newest first) starts: after a keyset position (exclusive; none: the
 * newest row), or at the probe's row (inclusive).
 */
export type WalkStart = { after?: Keyset } | { pivot: Keyset };

/** What a walk answers: a page of its matches, or how many they are up to `cap` (the walk stops there). */
export type WalkAnswer = { page: { limit: number; offset?: number } } | { countUpTo: number };

/**
 * The matches among the next `window` rows in order from `start`, searched: step 1 (from the newest row
 * or the keyset position), and the walk down from the probe's row (page and count alike).
 */
export function windowedSearchStatement(
  filter: TransactionFilter,
  start: WalkStart,
  window: number,
  answer: WalkAnswer,
): Statement {
  const params: unknown[] = [];
  let where = whereOf(filter, params, false);
  if ("pivot" in start) {
    params.push(start.pivot.createdAt, start.pivot.id);
    where += ` AND (created_at, id) <= ($${params.length - 1}, $${params.length})`;
  } else if (start.after) where += ` AND ${keysetClause(start.after, params)}`;
  params.push(window);
  const walk = (columns: string) =>
    `SELECT ${columns} FROM transactions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`;
  if ("countUpTo" in answer) {
    const inner = walk("search_text");
    const search = searchClause(filter.searchPattern!, params);
    params.push(answer.countUpTo);
    return {
      text:
        `SELECT count(*)::int AS n FROM (SELECT 1 FROM (${inner}) recent WHERE ${search} LIMIT $${params.length}) capped`,
      params,
    };
  }
  const inner = walk("*");
  const search = searchClause(filter.searchPattern!, params);
  params.push(answer.page.limit, answer.page.offset ?? 0);
  return {
    text: `SELECT ${COLUMNS} FROM (${inner}) recent WHERE ${search}
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

/**
 * What a page's search learnt that its count can reuse (same filter, no keyset position): the probe's
 * row, and how many matches are newer than it.
 */
export type SearchMemo = { pivot?: Keyset | null; newer?: number };

/** The planner's estimate of a search's matches from which the probe runs: below it, step 3 is cheap. */
export const PROBE_MIN_ESTIMATE = 1_000;

export type SearchWindows = {
  list: number;
  count: number;
  /** `minEstimate` 0 (tests) probes whatever the estimate. */
  probe?: { points: number; rows: number; minEstimate?: number };
};
const DEFAULT_WINDOWS: SearchWindows = {
  list: SEARCH_WINDOW,
  count: SEARCH_COUNT_WINDOW,
  probe: { points: PROBE_POINTS, rows: PROBE_ROWS, minEstimate: PROBE_MIN_ESTIMATE },
};

/**
 * The planner's estimate of the filter's matches (EXPLAIN, nothing run): PostgreSQL estimates a LIKE
 * from its sample of search_text, close enough to tell an e-mail (tens) from a shared prefix (tens of
 * thousands: 43,600 estimated for 45,600 at a million rows).
 */
async function estimatedMatches(db: Db, filter: TransactionFilter): Promise<number> {
  const params: unknown[] = [];
  const where = whereOf(filter, params);
  const [row] = await db.query<Record<string, unknown>>(
    `EXPLAIN (FORMAT JSON) SELECT 1 FROM transactions WHERE ${where}`,
    params,
    { oneShot: true },
  );
  let plan = Object.values(row)[0];
  if (typeof plan === "string") plan = JSON.parse(plan);
  const rows = (plan as Array<{ Plan?: { "Plan Rows"?: number } }>)[0]?.Plan?.["Plan Rows"];
  return typeof rows === "number" ? rows : Infinity;
}

/** `windows` only for tests, to make each step answer on a small history. */
export async function searchTransactionRows(
  db: Db,
  filter: TransactionFilter,
  page: Page,
  windows: SearchWindows = DEFAULT_WINDOWS,
  memo?: SearchMemo,
): Promise<TransactionRow[]> {
  const window = windows.list + (page.offset ?? 0);
  const first = windowedSearchStatement(filter, page, window, { page });
  const rows = await db.query<TransactionRow>(first.text, first.params, { oneShot: true });
  if (rows.length >= page.limit) return rows;
  const sizes = windows.probe ?? DEFAULT_WINDOWS.probe!;
  // A rare term (the planner's estimate) goes straight to step 3: the probe would only add its cost.
  const worthIt = (sizes.minEstimate ?? 0) <= 0 || await estimatedMatches(db, filter) >= sizes.minEstimate!;
  const pivot = worthIt ? await probe(db, filter, page.after, sizes) : undefined;
  if (memo && !page.after) memo.pivot = pivot ?? null;
  if (pivot) {
    const offset = page.offset ?? 0;
    const down = windowedSearchStatement(filter, { pivot }, window, { page: { limit: offset + page.limit } });
    // The two parts are independent once the pivot is known: on two connections at once, the walk down
    // costs no time beside the trigram index scan (PGlite, one connection, runs them in turn).
    const [newer, older] = await both(
      db,
      () =>
        bitmapOnly<TransactionRow & { newer_total: number }>(db, newerSearchStatement(filter, page, pivot)),
      () => db.query<TransactionRow>(down.text, down.params, { oneShot: true }),
    );
    if (memo && !page.after) memo.newer = newer[0]?.newer_total ?? 0;
    for (const row of newer) delete (row as { newer_total?: number }).newer_total;
    const joined = [...newer, ...older];
    if (joined.length >= offset + page.limit) return joined.slice(offset, offset + page.limit);
  }
  const second = indexedSearchStatement(filter, page);
  return await db.query<TransactionRow>(second.text, second.params, { oneShot: true });
}

/** `a` and `b` at once, except inside a transaction (one connection, whose settings `bitmapOnly` changes). */
async function both<A, B>(db: Db, a: () => Promise<A>, b: () => Promise<B>): Promise<[A, B]> {
  if (db.inTransaction) return [await a(), await b()];
  return await Promise.all([a(), b()]);
}

/** Matches, up to `cap` at least (more may be counted on the way: the caller caps what it shows). */
export async function countSearchMatches(
  db: Db,
  filter: TransactionFilter,
  cap: number,
  windows: SearchWindows = DEFAULT_WINDOWS,
  memo?: SearchMemo,
): Promise<number> {
  // Dense somewhere older (the page's search probed and met them): the matches newer than the probe's
  // row, counted by the page's statement, and those in a window down from it. First, since that window
  // starts among the matches: for a shared prefix it reaches the cap within a few thousand rows, where
  // the walk over the newest rows below would read all of its window for none (issue 21).
  // Only when the page probed already: a probe of its own costs a count more than it saves (measured).
  const pivot = memo?.pivot;
  if (pivot && memo?.newer !== undefined) {
    const down = windowedSearchStatement(filter, { pivot }, windows.count, { countUpTo: cap });
    const [older] = await db.query<{ n: number }>(down.text, down.params, { oneShot: true });
    if (memo.newer + older.n >= cap) return memo.newer + older.n;
  }
  const first = windowedSearchStatement(filter, {}, windows.count, { countUpTo: cap });
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
