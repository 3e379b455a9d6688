// SQL for the pool of derived deposit addresses.
import type { Db } from "./mod.ts";

export type DepositAddressRow = {
  address: string;
  address_hex: string;
  is_sandbox: boolean;
  account_index: number;
  derivation_index: number;
  payin_id: string | null;
  qr_png: string;
  watch_until: Date | null;
};

/** Free addresses of a mode, and the next index past every address derived so far. */
export async function countFree(db: Db, isSandbox: boolean): Promise<{ free: number; nextIndex: number }> {
  const rows = await db.query<{ free: number; next_index: number }>(
    `SELECT count(*) FILTER (WHERE payin_id IS NULL)::int AS free,
            COALESCE(max(derivation_index) + 1, 0)::int AS next_index
       FROM deposit_addresses WHERE is_sandbox = $1`,
    [isSandbox],
  );
  return { free: rows[0].free, nextIndex: rows[0].next_index };
}

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

/** Inserts an address already claimed by a pay-in (derived on the spot when the pool was empty). */
export async function insertClaimedAddress(
  db: Db,
  r: {
    address: string;
    addressHex: string;
    isSandbox: boolean;
    accountIndex: number;
    index: number;
    qrPng: string;
    payinId: string;
    watchUntil: Date;
    now: Date;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO deposit_addresses (address, address_hex, is_sandbox, account_index, derivation_index, qr_png,
       payin_id, claimed_at, watch_until)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [r.address, r.addressHex, r.isSandbox, r.accountIndex, r.index, r.qrPng, r.payinId, r.now, r.watchUntil],
  );
}

export async function insertAddresses(
  db: Db,
  rows: Array<
    {
      address: string;
      addressHex: string;
      isSandbox: boolean;
      accountIndex: number;
      index: number;
      qrPng: string;
    }
  >,
): Promise<number> {
  if (rows.length === 0) return 0;
  const params: unknown[] = [];
  const values = rows.map((r, i) => {
    params.push(r.address, r.addressHex, r.isSandbox, r.accountIndex, r.index, r.qrPng);
    const b = i * 6;
    return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6})`;
  });
  const inserted = await db.query(
    `INSERT INTO deposit_addresses (address, address_hex, is_sandbox, account_index, derivation_index, qr_png)
     VALUES ${values.join(", ")} ON CONFLICT DO NOTHING RETURNING address`,
    params,
  );
  return inserted.length;
}

/**
 * Claims the lowest free address; SKIP LOCKED lets concurrent creations take different ones. Also answers
 * the account's next index to derive: free addresses are claimed in index order, so the gap between the
 * two is about how many remain, and the caller can ask for a refill without counting.
 */
export async function claimFree(
  db: Db,
  c: { isSandbox: boolean; accountIndex: number; payinId: string; watchUntil: Date; now: Date },
): Promise<{ address: string; qr_png: string; derivation_index: number; next_index: number } | undefined> {
  return (await db.query<{ address: string; qr_png: string; derivation_index: number; next_index: number }>(
    `UPDATE deposit_addresses SET payin_id = $2, claimed_at = $4, watch_until = $3
      WHERE address = (SELECT address FROM deposit_addresses WHERE payin_id IS NULL AND is_sandbox = $1
                        ORDER BY derivation_index LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING address, qr_png, derivation_index,
        COALESCE((SELECT next_index FROM address_index_counters WHERE account_index = $5), 0) AS next_index`,
    [c.isSandbox, c.payinId, c.watchUntil, c.now, c.accountIndex],
  ))[0];
}

/** Watched addresses among the given hex addresses, with the pay-in each belongs to. */
export async function findWatched(
  db: Db,
  addressesHex: string[],
): Promise<
  Array<{ address_hex: string; address: string; payin_id: string; watch_until: Date; is_sandbox: boolean }>
> {
  if (addressesHex.length === 0) return [];
  return await db.query(
    `SELECT address_hex, address, payin_id, watch_until, is_sandbox FROM deposit_addresses
      WHERE address_hex = ANY($1::text[]) AND payin_id IS NOT NULL`,
    [addressesHex],
  );
}
