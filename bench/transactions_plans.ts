// EXPLAIN (ANALYZE, BUFFERS) of the statements behind the transactions bench's requests, as the gateway
// runs them (the count of a search's second step with bitmap scans only), printed for docs/transactions.md.
import type { Db } from "../db/mod.ts";
import {
  countStatement,
  likeContains,
  listStatement,
  type Statement,
  type TransactionFilter,
} from "../db/transactions.ts";
import {
  indexedSearchCountStatement,
  indexedSearchStatement,
  newerSearchStatement,
  PROBE_POINTS,
  PROBE_ROWS,
  probeStatement,
  SEARCH_COUNT_WINDOW,
  SEARCH_WINDOW,
  windowedSearchStatement,
} from "../db/transactions_search.ts";

async function explain(db: Db, s: Statement, bitmapOnly = false): Promise<string> {
  return await db.tx(async (tx) => {
    if (bitmapOnly) {
      await tx.query(
        "SELECT set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true)",
      );
    }
    const rows = await tx.query<Record<string, string>>(`EXPLAIN (ANALYZE, BUFFERS) ${s.text}`, s.params);
    return rows.map((r) => Object.values(r)[0]).join("\n");
  });
}

export async function printPlans(
  db: Db,
  label: string,
  merchantId: string,
  rareTerm: string,
  weekFrom: string,
  weekTo: string,
  deep: { created_at: Date; id: string },
): Promise<void> {
  const base: TransactionFilter = { merchantId, isSandbox: false };
  const rare = { ...base, searchPattern: likeContains(rareTerm) };
  const frequent = { ...base, searchPattern: likeContains("gmail.com") };
  const plans: Array<[string, Statement, boolean?]> = [
    ["first page", listStatement(base, { limit: 21 })],
    ["count (capped at 1,001)", countStatement(base, 1_001)],
    [
      "keyset page at 80% depth",
      listStatement(base, { limit: 21, after: { createdAt: deep.created_at, id: deep.id } }),
    ],
    [
      "type=WITHDRAWAL&status=REJECTED",
      listStatement({ ...base, type: "WITHDRAWAL", status: "REJECTED" }, { limit: 21 }),
    ],
    [
      "count type=WITHDRAWAL&status=FAILED",
      countStatement({ ...base, type: "WITHDRAWAL", status: "FAILED" }, 1_001),
    ],
    [
      "one week + type=PAYOUT",
      listStatement({ ...base, type: "PAYOUT", from: new Date(weekFrom), before: new Date(weekTo) }, {
        limit: 21,
      }),
    ],
    [
      `search "${rareTerm}", step 1 (newest ${SEARCH_WINDOW} rows)`,
      windowedSearchStatement(rare, {}, SEARCH_WINDOW, { page: { limit: 21 } }),
    ],
    [`search "${rareTerm}", step 3 (trigram index)`, indexedSearchStatement(rare, { limit: 21 })],
    [
      `search "gmail.com", step 1 (enough)`,
      windowedSearchStatement(frequent, {}, SEARCH_WINDOW, { page: { limit: 21 } }),
    ],
    [
      `count "gmail.com", step 1 (newest ${SEARCH_COUNT_WINDOW} rows)`,
      windowedSearchStatement(frequent, {}, SEARCH_COUNT_WINDOW, { countUpTo: 1_001 }),
    ],
    [`count "${rareTerm}", step 3 (bitmap scans only)`, indexedSearchCountStatement(rare, 1_001), true],
  ];
  // The old shared prefix (issue 21's slow kind): the probe, then the matches newer than its row (trigram
  // index AND the BRIN range) and the walk down from it.
  const prefix = { ...base, searchPattern: likeContains("ORD-21-4") };
  const probed = probeStatement(prefix, undefined, { points: PROBE_POINTS, rows: PROBE_ROWS });
  plans.push([`probe "ORD-21-4" (${PROBE_POINTS} walks of ${PROBE_ROWS} rows)`, probed]);
  const [hit] = await db.query<{ created_at: Date; id: string }>(probed.text, probed.params);
  if (hit) {
    const pivot = { createdAt: hit.created_at, id: hit.id };
    plans.push([
      `"ORD-21-4" newer than the probe's row (bitmap scans only)`,
      newerSearchStatement(prefix, { limit: 21 }, pivot),
      true,
    ]);
    plans.push([
      `"ORD-21-4" down from the probe's row`,
      windowedSearchStatement(prefix, { pivot }, SEARCH_WINDOW, { page: { limit: 21 } }),
    ]);
    plans.push([
      `count "ORD-21-4" down from the probe's row (up to the cap)`,
      windowedSearchStatement(prefix, { pivot }, SEARCH_COUNT_WINDOW, { countUpTo: 1_001 }),
    ]);
  }
  for (const [name, statement, bitmapOnly] of plans) {
    console.log(`\n--- ${label}: ${name}\n${await explain(db, statement, bitmapOnly)}`);
  }
  console.log();
}
