// SQL for idempotency records: one row per (merchant, Idempotency-Key), kept 24 hours.
import type { Db } from "./mod.ts";

export type IdempotencyRow = {
  merchant_id: string;
  key: string;
  fingerprint: string;
  state: "RUNNING" | "DONE";
  response_status: number | null;
  response_body: string | null;
  locked_until: Date;
  expires_at: Date;
};

export async function insertRunning(
  db: Db,
  r: { merchantId: string; key: string; fingerprint: string; lockedUntil: Date; expiresAt: Date },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO idempotency_keys (merchant_id, key, fingerprint, state, locked_until, expires_at)
     VALUES ($1, $2, $3, 'RUNNING', $4, $5) ON CONFLICT (merchant_id, key) DO NOTHING RETURNING key`,
    [r.merchantId, r.key, r.fingerprint, r.lockedUntil, r.expiresAt],
  );
  return rows.length === 1;
}

export async function findRecord(
  db: Db,
  merchantId: string,
  key: string,
): Promise<IdempotencyRow | undefined> {
  return (await db.query<IdempotencyRow>(
    "SELECT * FROM idempotency_keys WHERE merchant_id = $1 AND key = $2",
    [
      merchantId,
      key,
    ],
  ))[0];
}

/** Takes over a record whose first request died mid-flight (lock expired), or an expired one. */
export async function takeOver(
  db: Db,
  r: { merchantId: string; key: string; fingerprint: string; now: Date; lockedUntil: Date; expiresAt: Date },
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE idempotency_keys
        SET fingerprint = $3, state = 'RUNNING', response_status = NULL, response_body = NULL,
            locked_until = $5, expires_at = $6, created_at = $4
      WHERE merchant_id = $1 AND key = $2
        AND (expires_at <= $4 OR (state = 'RUNNING' AND locked_until <= $4 AND fingerprint = $3))
      RETURNING key`,
    [r.merchantId, r.key, r.fingerprint, r.now, r.lockedUntil, r.expiresAt],
  );
  return rows.length === 1;
}

export async function completeRecord(
  db: Db,
  r: { merchantId: string; key: string; status: number; body: string },
): Promise<void> {
  await db.query(
    `UPDATE idempotency_keys SET state = 'DONE', response_status = $3, response_body = $4
      WHERE merchant_id = $1 AND key = $2`,
    [r.merchantId, r.key, r.status, r.body],
  );
}

export async function deleteRecord(db: Db, merchantId: string, key: string): Promise<void> {
  await db.query("DELETE FROM idempotency_keys WHERE merchant_id = $1 AND key = $2 AND state = 'RUNNING'", [
    merchantId,
    key,
  ]);
}

export async function deleteExpired(db: Db, now: Date): Promise<number> {
  return (await db.query("DELETE FROM idempotency_keys WHERE expires_at <= $1 RETURNING key", [now])).length;
}
