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

export async function countFree(db: Db, isSandbox: boolean): Promise<{ free: number; nextIndex: number }> {
  const rows = await db.query<{ free: number; next_index: number }>(
    `SELECT count(*) FILTER (WHERE payin_id IS NULL)::int AS free,
            COALESCE(max(derivation_index) + 1, 0)::int AS next_index
       FROM deposit_addresses WHERE is_sandbox = $1`,
    [isSandbox],
  );
  return { free: rows[0].free, nextIndex: rows[0].next_index };
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

/** Claims the lowest free address; SKIP LOCKED lets concurrent creations take different ones. */
export async function claimFree(
  db: Db,
  c: { isSandbox: boolean; payinId: string; watchUntil: Date; now: Date },
): Promise<{ address: string; qr_png: string } | undefined> {
  return (await db.query<{ address: string; qr_png: string }>(
    `UPDATE deposit_addresses SET payin_id = $2, claimed_at = $4, watch_until = $3
      WHERE address = (SELECT address FROM deposit_addresses WHERE payin_id IS NULL AND is_sandbox = $1
                        ORDER BY derivation_index LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING address, qr_png`,
    [c.isSandbox, c.payinId, c.watchUntil, c.now],
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
