// SQL for the pool of derived deposit addresses.
import type { Db } from "./mod.ts";

export type DepositAddressRow = {
  address: string;
  address_hex: string;
  is_sandbox: boolean;
  account_index: number;
  derivation_index: number;
  payin_id: string | null;
  /** Only in rows derived before migration 015: the QR code is now drawn when a pay-in is created. */
  qr_png: string | null;
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
 * Free addresses of a mode, counted on the partial index of free ones: the refill asks before each batch,
 * and countFree's max() reads every address the mode ever had (millions, in time).
 */
export async function countFreeOnly(db: Db, isSandbox: boolean): Promise<number> {
  const rows = await db.query<{ free: number }>(
    "SELECT count(*)::int AS free FROM deposit_addresses WHERE is_sandbox = $1 AND payin_id IS NULL",
    [isSandbox],
  );
  return rows[0].free;
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

export async function insertAddresses(
  db: Db,
  rows: Array<
    {
      address: string;
      addressHex: string;
      isSandbox: boolean;
      accountIndex: number;
      index: number;
      /** Not stored any more by the pool (migration 015); a caller may still give one. */
      qrPng?: string | null;
    }
  >,
  /** Set when the deriving process keeps them for its own creations (see leaseFree). */
  leasedUntil: Date | null = null,
): Promise<number> {
  if (rows.length === 0) return 0;
  const params: unknown[] = [leasedUntil];
  const values = rows.map((r, i) => {
    params.push(r.address, r.addressHex, r.isSandbox, r.accountIndex, r.index, r.qrPng ?? null);
    const b = 1 + i * 6;
    return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $1::timestamptz)`;
  });
  const inserted = await db.query(
    `INSERT INTO deposit_addresses (address, address_hex, is_sandbox, account_index, derivation_index, qr_png,
       leased_until)
     VALUES ${values.join(", ")} ON CONFLICT DO NOTHING RETURNING address`,
    params,
  );
  return inserted.length;
}

/**
 * Leases up to `count` free addresses (lowest indexes first) to the calling process until `until`;
 * SKIP LOCKED lets concurrent callers take different ones. Also answers the account's next index to
 * derive, so the caller knows about how many remain without counting. The lease is taken over by the
 * claim (the trigger on payins), or runs out.
 */
export async function leaseFree(
  db: Db,
  c: { isSandbox: boolean; accountIndex: number; count: number; now: Date; until: Date },
): Promise<Array<{ address: string; derivation_index: number; next_index: number }>> {
  return await db.query(
    `UPDATE deposit_addresses SET leased_until = $4
      WHERE address IN (SELECT address FROM deposit_addresses
                         WHERE payin_id IS NULL AND is_sandbox = $1 AND (leased_until IS NULL OR leased_until < $3)
                         ORDER BY derivation_index LIMIT $2 FOR UPDATE SKIP LOCKED)
      RETURNING address, derivation_index,
        COALESCE((SELECT next_index FROM address_index_counters WHERE account_index = $5), 0) AS next_index`,
    [c.isSandbox, c.count, c.now, c.until, c.accountIndex],
  );
}
