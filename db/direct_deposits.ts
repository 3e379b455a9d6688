// SQL for merchants' standing deposit addresses (direct top-ups, no pay-in).
import type { Db } from "./mod.ts";

export type StandingAddressRow = {
  address: string;
  address_hex: string;
  merchant_id: string;
  is_sandbox: boolean;
  account_index: number;
  derivation_index: number;
  qr_png: string;
  created_at: Date;
};

export async function findStandingAddress(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
): Promise<StandingAddressRow | undefined> {
  return (await db.query<StandingAddressRow>(
    `SELECT * FROM merchant_deposit_addresses WHERE merchant_id = $1 AND is_sandbox = $2`,
    [scope.merchantId, scope.isSandbox],
  ))[0];
}

/** Reserves the next derivation index of an HD account (shared with the pool's counters). */
export async function reserveIndex(db: Db, accountIndex: number): Promise<number> {
  const rows = await db.query<{ index: number }>(
    `UPDATE address_index_counters SET next_index = next_index + 1 WHERE account_index = $1
      RETURNING next_index - 1 AS index`,
    [accountIndex],
  );
  if (!rows[0]) throw new Error(`no index counter for HD account ${accountIndex}`);
  return rows[0].index;
}

/** Inserts the merchant's address unless one exists (a concurrent first call): the stored one wins. */
export async function insertStandingAddress(
  db: Db,
  a: Omit<StandingAddressRow, "created_at"> & { now: Date },
): Promise<StandingAddressRow> {
  await db.query(
    `INSERT INTO merchant_deposit_addresses (address, address_hex, merchant_id, is_sandbox, account_index,
       derivation_index, qr_png, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT ON CONSTRAINT one_standing_address_per_mode DO NOTHING`,
    [
      a.address,
      a.address_hex,
      a.merchant_id,
      a.is_sandbox,
      a.account_index,
      a.derivation_index,
      a.qr_png,
      a.now,
    ],
  );
  return (await findStandingAddress(db, { merchantId: a.merchant_id, isSandbox: a.is_sandbox }))!;
}

/** The standing addresses among these hex addresses: the scanner's per-block lookup. */
export async function findStandingByHex(db: Db, addressesHex: string[]): Promise<StandingAddressRow[]> {
  if (addressesHex.length === 0) return [];
  return await db.query<StandingAddressRow>(
    `SELECT * FROM merchant_deposit_addresses WHERE address_hex = ANY($1::text[])`,
    [addressesHex],
  );
}
