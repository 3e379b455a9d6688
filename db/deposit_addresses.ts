// SQL for deposit addresses: the index counters derivers reserve ranges from. The row that records an
// address as claimed by its pay-in is written by the pay-in's own creation statement (payin_creation.ts).
import type { Db } from "./mod.ts";

/**
 * Reserves `count` consecutive derivation indexes of an HD account with one atomic statement and answers
 * the first. The counter row is locked only for that statement, so derivers never wait on each other for
 * long and never get the same index.
 */
export async function reserveIndexes(db: Db, accountIndex: number, count: number): Promise<number> {
  const rows = await db.query<{ start: number }>(
    `INSERT INTO address_index_counters AS c (account_index, next_index) VALUES ($1, $2)
     ON CONFLICT (account_index) DO UPDATE SET next_index = c.next_index + $2
     RETURNING c.next_index - $2 AS start`,
    [accountIndex, count],
  );
  return rows[0].start;
}

/** The next index an account's derivers will reserve: every index below it is reserved. */
export async function nextIndex(db: Db, accountIndex: number): Promise<number> {
  const rows = await db.query<{ next_index: number }>(
    "SELECT next_index FROM address_index_counters WHERE account_index = $1",
    [accountIndex],
  );
  return rows[0]?.next_index ?? 0;
}
