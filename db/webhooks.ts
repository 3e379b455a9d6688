// SQL for webhook endpoints. Every read and write is scoped by (merchant, mode) so another merchant's or
// the other mode's endpoint is simply not found. Events, deliveries and attempts live in db/events.ts.
import type { Db } from "./mod.ts";

export type EndpointRow = {
  id: string;
  merchant_id: string;
  is_sandbox: boolean;
  url: string;
  events: string[];
  max_retries: number;
  retry_backoff: "EXPONENTIAL";
  retry_interval_seconds: number;
  secret_encrypted: string;
  status: "ACTIVE" | "DISABLED";
  consecutive_failures: number;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export type Owner = { merchantId: string; isSandbox: boolean };

export async function insertEndpoint(
  db: Db,
  e: Owner & {
    id: string;
    url: string;
    events: string[];
    maxRetries: number;
    retryBackoff: string;
    retryIntervalSeconds: number;
    secretEncrypted: string;
    now: Date;
  },
): Promise<EndpointRow> {
  const rows = await db.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (id, merchant_id, is_sandbox, url, events, max_retries, retry_backoff,
       retry_interval_seconds, secret_encrypted, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $8, $9, $10::timestamptz, $10::timestamptz) RETURNING *`,
    [
      e.id,
      e.merchantId,
      e.isSandbox,
      e.url,
      e.events,
      e.maxRetries,
      e.retryBackoff,
      e.retryIntervalSeconds,
      e.secretEncrypted,
      e.now,
    ],
  );
  return rows[0];
}

export async function countEndpoints(db: Db, owner: Owner): Promise<number> {
  const rows = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM webhook_endpoints WHERE merchant_id = $1 AND is_sandbox = $2",
    [owner.merchantId, owner.isSandbox],
  );
  return rows[0].n;
}

export async function findEndpoint(db: Db, owner: Owner, id: string): Promise<EndpointRow | undefined> {
  return (await db.query<EndpointRow>(
    "SELECT * FROM webhook_endpoints WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3",
    [id, owner.merchantId, owner.isSandbox],
  ))[0];
}

export async function listEndpoints(
  db: Db,
  owner: Owner,
  page: { limit: number; offset: number },
): Promise<{ rows: EndpointRow[]; total: number }> {
  const rows = await db.query<EndpointRow & { total: number }>(
    `SELECT *, count(*) OVER ()::int AS total FROM webhook_endpoints
      WHERE merchant_id = $1 AND is_sandbox = $2
      ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
    [owner.merchantId, owner.isSandbox, page.limit, page.offset],
  );
  const total = rows[0]?.total ?? await countEndpoints(db, owner);
  return { rows, total };
}

export async function updateEndpoint(
  db: Db,
  owner: Owner,
  id: string,
  patch: {
    url?: string;
    events?: string[];
    maxRetries?: number;
    retryBackoff?: string;
    retryIntervalSeconds?: number;
    secretEncrypted?: string;
    now: Date;
  },
): Promise<EndpointRow | undefined> {
  const rows = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints SET
       url = COALESCE($4, url),
       events = COALESCE($5::text[], events),
       max_retries = COALESCE($6::int, max_retries),
       retry_backoff = COALESCE($7, retry_backoff),
       retry_interval_seconds = COALESCE($8::int, retry_interval_seconds),
       secret_encrypted = COALESCE($9, secret_encrypted),
       updated_at = $10::timestamptz
     WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3 RETURNING *`,
    [
      id,
      owner.merchantId,
      owner.isSandbox,
      patch.url ?? null,
      patch.events ?? null,
      patch.maxRetries ?? null,
      patch.retryBackoff ?? null,
      patch.retryIntervalSeconds ?? null,
      patch.secretEncrypted ?? null,
      patch.now,
    ],
  );
  return rows[0];
}

/** Deliveries, their attempts and the event links go with it (ON DELETE CASCADE). */
export async function deleteEndpoint(db: Db, owner: Owner, id: string): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    "DELETE FROM webhook_endpoints WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3 RETURNING id",
    [id, owner.merchantId, owner.isSandbox],
  );
  return rows.length === 1;
}

export async function reactivateEndpoint(
  db: Db,
  owner: Owner,
  id: string,
  now: Date,
): Promise<EndpointRow | undefined> {
  const rows = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints SET status = 'ACTIVE', consecutive_failures = 0, disabled_at = NULL,
       updated_at = $4::timestamptz
     WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3 RETURNING *`,
    [id, owner.merchantId, owner.isSandbox, now],
  );
  return rows[0];
}

/**
 * A delivery exhausted its retries. One atomic UPDATE, so concurrent failures count correctly; the
 * endpoint is disabled when the run reaches `disableAfter`. Returns the endpoint's new state.
 */
export async function recordEndpointExhausted(
  db: Db,
  id: string,
  disableAfter: number,
  now: Date,
): Promise<{ status: string; consecutive_failures: number } | undefined> {
  const rows = await db.query<{ status: string; consecutive_failures: number }>(
    `UPDATE webhook_endpoints SET
       consecutive_failures = consecutive_failures + 1,
       status = CASE WHEN consecutive_failures + 1 >= $2 THEN 'DISABLED' ELSE status END,
       disabled_at = CASE WHEN consecutive_failures + 1 >= $2 AND status = 'ACTIVE' THEN $3::timestamptz
                          ELSE disabled_at END,
       updated_at = $3::timestamptz
     WHERE id = $1 RETURNING status, consecutive_failures`,
    [id, disableAfter, now],
  );
  return rows[0];
}

/** Serializes a merchant's endpoint creations (the count-then-insert of the plan limit). */
export async function lockMerchantEndpoints(db: Db, merchantId: string): Promise<void> {
  await db.query("SELECT pg_advisory_xact_lock(hashtext('webhook_endpoints:' || $1))", [merchantId]);
}
