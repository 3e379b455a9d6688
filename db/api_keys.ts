// The SQL of keys a merchant manages itself (list, create within its cap, rotate, revoke). The lookup of
// every request stays in db/merchants.ts (findApiKeyByHash).
import type { Db } from "./mod.ts";

export type ManagedKeyRow = {
  id: string;
  merchant_id: string;
  kind: string;
  is_sandbox: boolean;
  display_prefix: string;
  scopes: string[] | null;
  name: string | null;
  revoked_at: Date | null;
  expires_at: Date | null;
  last_used_at: Date | null;
  last_used_from: string | null;
  created_by: string | null;
  rotated_to: string | null;
  ip_allowlist: string[];
  created_at: Date;
};

const COLUMNS = `id, merchant_id, kind, is_sandbox, display_prefix, scopes, name, revoked_at, expires_at,
  last_used_at, last_used_from, created_by, rotated_to, ip_allowlist, created_at`;

export async function listMerchantKeys(db: Db, merchantId: string): Promise<ManagedKeyRow[]> {
  return await db.query<ManagedKeyRow>(
    `SELECT ${COLUMNS} FROM api_keys WHERE merchant_id = $1 ORDER BY created_at DESC, id DESC`,
    [merchantId],
  );
}

export async function findMerchantKey(db: Db, merchantId: string, id: string, lock = false) {
  return (await db.query<ManagedKeyRow>(
    `SELECT ${COLUMNS} FROM api_keys WHERE merchant_id = $1 AND id = $2${lock ? " FOR UPDATE" : ""}`,
    [merchantId, id],
  ))[0];
}

/**
 * Locks the merchant (so two creations cannot both take the last place) and counts its keys that still
 * work at `now`; answers the cap that applies (the merchant's own, else `fallback`).
 */
export async function lockKeyCount(db: Db, merchantId: string, now: Date, fallback: number) {
  const [merchant] = await db.query<{ max_api_keys: number | null }>(
    "SELECT max_api_keys FROM merchants WHERE id = $1 FOR UPDATE",
    [merchantId],
  );
  const [{ n }] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM api_keys
      WHERE merchant_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)`,
    [merchantId, now],
  );
  return { used: n, cap: merchant?.max_api_keys ?? fallback };
}

export async function insertManagedKey(
  db: Db,
  k: {
    id: string;
    merchantId: string;
    kind: string;
    isSandbox: boolean;
    displayPrefix: string;
    hash: string;
    scopes: readonly string[] | null;
    name: string | null;
    createdBy: string;
    createdAt: Date;
  },
): Promise<ManagedKeyRow> {
  return (await db.query<ManagedKeyRow>(
    `INSERT INTO api_keys (id, merchant_id, kind, is_sandbox, display_prefix, key_hash, scopes, name, created_by,
                           created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
    [
      k.id,
      k.merchantId,
      k.kind,
      k.isSandbox,
      k.displayPrefix,
      k.hash,
      k.scopes,
      k.name,
      k.createdBy,
      k.createdAt,
    ],
  ))[0];
}

/** The old key of a rotation: it works until `expiresAt`, and names its successor. */
export async function markRotated(db: Db, id: string, successorId: string, expiresAt: Date) {
  await db.query("UPDATE api_keys SET rotated_to = $2, expires_at = $3 WHERE id = $1", [
    id,
    successorId,
    expiresAt,
  ]);
}

export async function revokeMerchantKey(db: Db, merchantId: string, id: string, now: Date) {
  return (await db.query<ManagedKeyRow>(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3) WHERE merchant_id = $1 AND id = $2
     RETURNING ${COLUMNS}`,
    [merchantId, id, now],
  ))[0];
}

/** Called at most once a minute per key and process (domain/auth.ts): when and from where it was used. */
export async function recordKeyUse(db: Db, id: string, at: Date, from: string) {
  await db.query("UPDATE api_keys SET last_used_at = $2, last_used_from = $3 WHERE id = $1", [id, at, from]);
}

export async function findMerchantAllowlist(db: Db, merchantId: string): Promise<string[]> {
  return (await db.query<{ ip_allowlist: string[] }>("SELECT ip_allowlist FROM merchants WHERE id = $1", [
    merchantId,
  ]))[0]?.ip_allowlist ?? [];
}

export async function updateMerchantAllowlist(db: Db, merchantId: string, cidrs: string[]) {
  await db.query("UPDATE merchants SET ip_allowlist = $2 WHERE id = $1", [merchantId, cidrs]);
}

export async function updateKeyAllowlist(db: Db, merchantId: string, id: string, cidrs: string[]) {
  return (await db.query<ManagedKeyRow>(
    `UPDATE api_keys SET ip_allowlist = $3 WHERE merchant_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [merchantId, id, cidrs],
  ))[0];
}
