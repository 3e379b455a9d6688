// SQL for merchants, their API keys and their wallets.
import type { Db } from "./mod.ts";

export type MerchantRow = {
  id: string;
  name: string;
  status: "ACTIVE" | "SUSPENDED" | "CLOSED";
  kyb_status: "PENDING" | "APPROVED" | "REJECTED";
  enabled_rails: string[];
  fee_schedule: Record<string, string>;
  rate_limits: Record<string, number>;
  /** What customers see on hosted pages (migration 020); null: `name`. */
  display_name: string | null;
  /** A small PNG, JPEG or WebP as a data URL, checked by its bytes; null: a monogram. */
  logo_data_url: string | null;
  /** The newest merchant agreement version signed (migration 044); null: never signed. */
  agreement_version: number | null;
  /** When a newer agreement waits, the end of its re-sign window; null: nothing waits. */
  agreement_resign_by: Date | null;
  created_at: Date;
  updated_at: Date;
};

export type ApiKeyRow = {
  id: string;
  merchant_id: string;
  kind: string;
  is_sandbox: boolean;
  display_prefix: string;
  scopes: string[] | null;
  revoked_at: Date | null;
  created_at: Date;
};

export async function insertMerchant(
  db: Db,
  m: { id: string; name: string; kybStatus: string },
): Promise<void> {
  await db.query("INSERT INTO merchants (id, name, kyb_status) VALUES ($1, $2, $3)", [
    m.id,
    m.name,
    m.kybStatus,
  ]);
}

export async function findMerchant(db: Db, id: string): Promise<MerchantRow | undefined> {
  return (await db.query<MerchantRow>("SELECT * FROM merchants WHERE id = $1", [id]))[0];
}

export async function updateMerchant(
  db: Db,
  id: string,
  patch: {
    kybStatus?: string;
    status?: string;
    enabledRails?: string[];
    feeSchedule?: object;
    rateLimits?: object;
  },
): Promise<MerchantRow | undefined> {
  const rows = await db.query<MerchantRow>(
    `UPDATE merchants SET
       kyb_status = COALESCE($2, kyb_status),
       status = COALESCE($3, status),
       enabled_rails = COALESCE($4::text[], enabled_rails),
       fee_schedule = COALESCE($5::text::jsonb, fee_schedule),
       rate_limits = COALESCE($6::text::jsonb, rate_limits),
       updated_at = now()
     WHERE id = $1 RETURNING *`,
    [
      id,
      patch.kybStatus ?? null,
      patch.status ?? null,
      patch.enabledRails ?? null,
      patch.feeSchedule ? JSON.stringify(patch.feeSchedule) : null,
      patch.rateLimits ? JSON.stringify(patch.rateLimits) : null,
    ],
  );
  return rows[0];
}

export async function insertApiKey(
  db: Db,
  k: {
    id: string;
    merchantId: string;
    kind: string;
    isSandbox: boolean;
    displayPrefix: string;
    hash: string;
    scopes: readonly string[] | null;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO api_keys (id, merchant_id, kind, is_sandbox, display_prefix, key_hash, scopes)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [k.id, k.merchantId, k.kind, k.isSandbox, k.displayPrefix, k.hash, k.scopes],
  );
}

export type KeyLookupRow = ApiKeyRow & {
  expires_at: Date | null;
  last_used_at: Date | null;
  key_ip_allowlist: string[];
  merchant_ip_allowlist: string[];
  merchant_status: MerchantRow["status"];
  kyb_status: MerchantRow["kyb_status"];
  enabled_rails: string[];
  fee_schedule: Record<string, string>;
  rate_limits: Record<string, number>;
  plan_limits: Record<string, string> | null;
  agreement_version: number | null;
  agreement_resign_by: Date | null;
};

/** The hot path of every request: one indexed lookup joining the key to its merchant. */
export async function findApiKeyByHash(db: Db, hash: string): Promise<KeyLookupRow | undefined> {
  const rows = await db.query<KeyLookupRow>(
    `SELECT k.id, k.merchant_id, k.kind, k.is_sandbox, k.display_prefix, k.scopes, k.revoked_at, k.created_at,
            k.expires_at, k.last_used_at, k.ip_allowlist AS key_ip_allowlist,
            m.ip_allowlist AS merchant_ip_allowlist, m.status AS merchant_status, m.kyb_status, m.enabled_rails, m.fee_schedule, m.rate_limits,
            m.plan_limits, m.agreement_version, m.agreement_resign_by
       FROM api_keys k JOIN merchants m ON m.id = k.merchant_id
      WHERE k.key_hash = $1`,
    [hash],
  );
  return rows[0];
}

export async function revokeApiKey(db: Db, id: string): Promise<ApiKeyRow | undefined> {
  const rows = await db.query<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1
     RETURNING id, merchant_id, kind, is_sandbox, display_prefix, scopes, revoked_at, created_at`,
    [id],
  );
  return rows[0];
}

/** Sets both branding fields as given (null clears one); the caller merges with what is stored. */
export async function updateMerchantBranding(
  db: Db,
  id: string,
  branding: { displayName: string | null; logoDataUrl: string | null },
): Promise<MerchantRow | undefined> {
  const rows = await db.query<MerchantRow>(
    `UPDATE merchants SET display_name = $2, logo_data_url = $3, updated_at = now() WHERE id = $1 RETURNING *`,
    [id, branding.displayName, branding.logoDataUrl],
  );
  return rows[0];
}

/** What still holds a merchant's live money: non-zero wallets, unfinished pay-ins and money out. */
export async function closingBlockers(db: Db, merchantId: string) {
  const [row] = await db.query<{ wallets: string[]; payins: number; outbound: number }>(
    `SELECT
       ARRAY(SELECT currency || '/' || rail || ' ' || balance::text FROM accounts
              WHERE merchant_id = $1 AND NOT is_sandbox AND kind = 'WALLET' AND balance <> 0
              ORDER BY currency, rail) AS wallets,
       (SELECT count(*)::int FROM payins WHERE merchant_id = $1 AND NOT is_sandbox
           AND status IN ('AWAITING_PAYMENT', 'PENDING', 'CONFIRMING')) AS payins,
       (SELECT count(*)::int FROM outbound_transfers WHERE merchant_id = $1 AND NOT is_sandbox
           AND status NOT IN ('CONFIRMED', 'FAILED', 'CANCELLED', 'REJECTED')) AS outbound`,
    [merchantId],
  );
  return row;
}
