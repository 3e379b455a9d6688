// SQL for the address whitelist (saved crypto recipients). Entries are added or merged, never deleted.
import type { Db } from "./mod.ts";

export type WhitelistRow = {
  id: string;
  merchant_id: string;
  is_sandbox: boolean;
  currency: string;
  chain: string;
  address: string;
  label: string | null;
  usage_contexts: string[];
  added_via: "API_KEY" | "DASHBOARD";
  available_at: Date;
  created_at: Date;
  updated_at: Date;
  /** The oldest entry with the WITHDRAWAL context is the merchant's primary withdrawal address. */
  is_primary: boolean;
};

/** Primary is derived, never stored: the oldest WITHDRAWAL entry of the merchant and mode. */
const PRIMARY = `COALESCE(w.id = (SELECT p.id FROM whitelist_entries p
   WHERE p.merchant_id = w.merchant_id AND p.is_sandbox = w.is_sandbox AND 'WITHDRAWAL' = ANY(p.usage_contexts)
   ORDER BY p.created_at, p.id LIMIT 1), false) AS is_primary`;

export type NewWhitelistEntry = {
  id: string;
  merchantId: string;
  isSandbox: boolean;
  address: string;
  label: string | null;
  usageContexts: string[];
  addedVia: "API_KEY" | "DASHBOARD";
  now: Date;
  availableAt: Date;
};

/**
 * Adds entries, or merges the given contexts into existing ones (the label and the wait stay as they
 * were). One statement, so concurrent identical adds end with one row. `inserted` tells which was which.
 */
export async function upsertEntries(
  db: Db,
  entries: NewWhitelistEntry[],
): Promise<Array<{ id: string; address: string; inserted: boolean }>> {
  if (entries.length === 0) return [];
  const params: unknown[] = [];
  const values = entries.map((e) => {
    params.push(
      e.id,
      e.merchantId,
      e.isSandbox,
      e.address,
      e.label,
      e.usageContexts,
      e.addedVia,
      e.availableAt,
      e.now,
    );
    const b = params.length - 9;
    return `($${b + 1}, $${b + 2}, $${b + 3}, 'USDT_TRC20', 'TRON', $${b + 4}, $${b + 5}, $${
      b + 6
    }::text[], $${b + 7}, $${b + 8}, $${b + 9}, $${b + 9})`;
  });
  return await db.query<{ id: string; address: string; inserted: boolean }>(
    `INSERT INTO whitelist_entries AS w (id, merchant_id, is_sandbox, currency, chain, address, label,
       usage_contexts, added_via, available_at, created_at, updated_at)
     VALUES ${values.join(", ")}
     ON CONFLICT ON CONSTRAINT whitelist_entry_unique DO UPDATE
       SET usage_contexts = ARRAY(SELECT DISTINCT c FROM unnest(w.usage_contexts || EXCLUDED.usage_contexts) AS c
                                  ORDER BY c),
           updated_at = CASE WHEN w.usage_contexts @> EXCLUDED.usage_contexts THEN w.updated_at
                             ELSE EXCLUDED.updated_at END
     RETURNING w.id, w.address, (xmax = 0) AS inserted`,
    params,
  );
}

export async function findEntry(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
  id: string,
): Promise<WhitelistRow | undefined> {
  return (await db.query<WhitelistRow>(
    `SELECT w.*, ${PRIMARY} FROM whitelist_entries w WHERE w.id = $1 AND w.merchant_id = $2 AND w.is_sandbox = $3`,
    [id, scope.merchantId, scope.isSandbox],
  ))[0];
}

export async function findEntryByAddress(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
  address: string,
): Promise<WhitelistRow | undefined> {
  return (await db.query<WhitelistRow>(
    `SELECT w.*, ${PRIMARY} FROM whitelist_entries w
      WHERE w.address = $1 AND w.chain = 'TRON' AND w.merchant_id = $2 AND w.is_sandbox = $3`,
    [address, scope.merchantId, scope.isSandbox],
  ))[0];
}

export async function findEntriesByIds(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
  ids: string[],
): Promise<WhitelistRow[]> {
  if (ids.length === 0) return [];
  return await db.query<WhitelistRow>(
    `SELECT w.*, ${PRIMARY} FROM whitelist_entries w
      WHERE w.id = ANY($1::text[]) AND w.merchant_id = $2 AND w.is_sandbox = $3`,
    [ids, scope.merchantId, scope.isSandbox],
  );
}

/** The merchant's primary withdrawal address, if any. */
export async function findPrimaryWithdrawalEntry(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
): Promise<WhitelistRow | undefined> {
  return (await db.query<WhitelistRow>(
    `SELECT w.*, true AS is_primary FROM whitelist_entries w
      WHERE w.merchant_id = $1 AND w.is_sandbox = $2 AND 'WITHDRAWAL' = ANY(w.usage_contexts)
      ORDER BY w.created_at, w.id LIMIT 1`,
    [scope.merchantId, scope.isSandbox],
  ))[0];
}

export async function replaceContexts(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
  input: { id: string; usageContexts: string[]; now: Date },
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE whitelist_entries SET usage_contexts = $4::text[], updated_at = $5
      WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3 RETURNING id`,
    [input.id, scope.merchantId, scope.isSandbox, input.usageContexts, input.now],
  );
  return rows.length === 1;
}

export async function listEntries(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
  q: { usageContext?: string; limit: number; offset: number },
): Promise<{ rows: WhitelistRow[]; total: number }> {
  const filter = q.usageContext ? `AND $3 = ANY(w.usage_contexts)` : `AND $3::text IS NULL`;
  const args = [scope.merchantId, scope.isSandbox, q.usageContext ?? null];
  const [rows, count] = await Promise.all([
    db.query<WhitelistRow>(
      `SELECT w.*, ${PRIMARY} FROM whitelist_entries w WHERE w.merchant_id = $1 AND w.is_sandbox = $2 ${filter}
        ORDER BY w.created_at DESC, w.id DESC LIMIT $4 OFFSET $5`,
      [...args, q.limit, q.offset],
    ),
    db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM whitelist_entries w WHERE w.merchant_id = $1 AND w.is_sandbox = $2 ${filter}`,
      args,
    ),
  ]);
  return { rows, total: count[0].n };
}
