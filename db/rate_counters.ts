// Counters of the rate limits in PostgreSQL, so that gateways on several hosts share one limit.
import type { Db } from "./mod.ts";

/** Adds `by` to each bucket's count in `window` in one statement; answers the totals after, in order. */
export async function addToCounters(
  db: Db,
  window: number,
  entries: Array<{ bucket: string; by: number }>,
): Promise<number[]> {
  const rows = await db.query<{ bucket: string; count: string }>(
    `INSERT INTO rate_counters (bucket, window_no, count)
       SELECT b, $1, n FROM unnest($2::text[], $3::bigint[]) AS t(b, n)
     ON CONFLICT (window_no, bucket) DO UPDATE SET count = rate_counters.count + EXCLUDED.count
     RETURNING bucket, count`,
    [window, entries.map((e) => e.bucket), entries.map((e) => e.by)],
  );
  const totals = new Map(rows.map((r) => [r.bucket, Number(r.count)]));
  return entries.map((e) => totals.get(e.bucket) ?? 0);
}

export async function readCounter(db: Db, window: number, bucket: string): Promise<number> {
  const rows = await db.query<{ count: string }>(
    "SELECT count FROM rate_counters WHERE window_no = $1 AND bucket = $2",
    [window, bucket],
  );
  return Number(rows[0]?.count ?? 0);
}

export async function deleteCountersBefore(db: Db, window: number): Promise<number> {
  const rows = await db.query("DELETE FROM rate_counters WHERE window_no < $1 RETURNING 1", [window]);
  return rows.length;
}
