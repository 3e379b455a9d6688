// SQL for deposit addresses: the index counters derivers reserve ranges from, and the row that records an
// address as claimed by its pay-in, written by the pay-in's own creation statement.
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

export type AddressClaim = {
  address: string;
  addressHex: string;
  isSandbox: boolean;
  accountIndex: number;
  derivationIndex: number;
  payinId: string;
  claimedAt: Date;
  /** Transfers to the address are still looked at until then (late funds). */
  watchUntil: Date;
};

/**
 * The INSERT recording `c.address` as claimed by its pay-in, with placeholders from `$first`, to run as a
 * CTE of the statement creating that pay-in (whose foreign key (address, id) needs this row). An address
 * already recorded is refused by the primary key: it never serves two pay-ins.
 */
export function addressClaimStatement(c: AddressClaim, first: number): { sql: string; params: unknown[] } {
  const $ = (n: number) => `$${first + n - 1}`;
  return {
    sql: `INSERT INTO deposit_addresses (address, address_hex, is_sandbox, account_index, derivation_index,
       payin_id, claimed_at, watch_until)
     VALUES (${$(1)}, ${$(2)}, ${$(3)}, ${$(4)}::int, ${$(5)}::int, ${$(6)}, ${$(7)}::timestamptz,
       ${$(8)}::timestamptz)`,
    params: [
      c.address,
      c.addressHex,
      c.isSandbox,
      c.accountIndex,
      c.derivationIndex,
      c.payinId,
      c.claimedAt,
      c.watchUntil,
    ],
  };
}
