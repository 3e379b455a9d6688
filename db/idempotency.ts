// SQL for idempotency records: one row per (merchant, mode, Idempotency-Key), kept 24 hours.
import type { Db } from "./mod.ts";

export type IdempotencyRow = {
  merchant_id: string;
  is_sandbox: boolean;
  key: string;
  fingerprint: string;
  state: "RUNNING" | "DONE";
  response_status: number | null;
  response_body: string | null;
  locked_until: Date;
  expires_at: Date;
};

/** Which record: a key belongs to one merchant in one mode. */
export type RecordScope = { merchantId: string; isSandbox: boolean; key: string };

export async function insertRunning(
  db: Db,
  r: RecordScope & { fingerprint: string; lockedUntil: Date; expiresAt: Date },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO idempotency_keys (merchant_id, is_sandbox, key, fingerprint, state, locked_until, expires_at)
     VALUES ($1, $2, $3, $4, 'RUNNING', $5, $6) ON CONFLICT (merchant_id, is_sandbox, key) DO NOTHING
     RETURNING key`,
    [r.merchantId, r.isSandbox, r.key, r.fingerprint, r.lockedUntil, r.expiresAt],
  );
  return rows.length === 1;
}

/** Records a finished answer outright (a refusal remembered after its transaction rolled back). */
export async function insertDone(
  db: Db,
  r: RecordScope & { fingerprint: string; status: number; body: string; now: Date; expiresAt: Date },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO idempotency_keys
       (merchant_id, is_sandbox, key, fingerprint, state, response_status, response_body, locked_until, expires_at)
     VALUES ($1, $2, $3, $4, 'DONE', $5, $6, $7, $8) ON CONFLICT (merchant_id, is_sandbox, key) DO NOTHING
     RETURNING key`,
    [r.merchantId, r.isSandbox, r.key, r.fingerprint, r.status, r.body, r.now, r.expiresAt],
  );
  return rows.length === 1;
}

export async function findRecord(db: Db, s: RecordScope): Promise<IdempotencyRow | undefined> {
  return (await db.query<IdempotencyRow>(
    "SELECT * FROM idempotency_keys WHERE merchant_id = $1 AND is_sandbox = $2 AND key = $3",
    [s.merchantId, s.isSandbox, s.key],
  ))[0];
}

/**
 * Takes a transaction-scoped advisory lock on one key, without waiting: false means another transaction
 * is running a request with this key right now. Two 32-bit hashes make a 64-bit lock id; a collision
 * between two different keys only makes one of them answer CONFLICT and be retried.
 */
export async function tryLockKey(tx: Db, s: RecordScope): Promise<boolean> {
  const rows = await tx.query<{ locked: boolean }>(
    "SELECT pg_try_advisory_xact_lock(hashtext($1), hashtext($2)) AS locked",
    [`idem:${s.merchantId}:${s.isSandbox ? "sandbox" : "live"}`, s.key],
  );
  return rows[0].locked === true;
}

/** Takes over a record whose first request died mid-flight (lock expired), or an expired one. */
export async function takeOver(
  db: Db,
  r: RecordScope & { fingerprint: string; now: Date; lockedUntil: Date; expiresAt: Date },
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE idempotency_keys
        SET fingerprint = $4, state = 'RUNNING', response_status = NULL, response_body = NULL,
            locked_until = $6, expires_at = $7, created_at = $5
      WHERE merchant_id = $1 AND is_sandbox = $2 AND key = $3
        AND (expires_at <= $5 OR (state = 'RUNNING' AND locked_until <= $5 AND fingerprint = $4))
      RETURNING key`,
    [r.merchantId, r.isSandbox, r.key, r.fingerprint, r.now, r.lockedUntil, r.expiresAt],
  );
  return rows.length === 1;
}

export async function completeRecord(
  db: Db,
  r: RecordScope & { status: number; body: string },
): Promise<void> {
  await db.query(
    `UPDATE idempotency_keys SET state = 'DONE', response_status = $4, response_body = $5
      WHERE merchant_id = $1 AND is_sandbox = $2 AND key = $3`,
    [r.merchantId, r.isSandbox, r.key, r.status, r.body],
  );
}

/** Frees a key whose request ended without an answer worth keeping; a finished record is never touched. */
export async function deleteRunning(db: Db, s: RecordScope): Promise<void> {
  await db.query(
    "DELETE FROM idempotency_keys WHERE merchant_id = $1 AND is_sandbox = $2 AND key = $3 AND state = 'RUNNING'",
    [s.merchantId, s.isSandbox, s.key],
  );
}

export async function deleteExpired(db: Db, now: Date): Promise<number> {
  return (await db.query("DELETE FROM idempotency_keys WHERE expires_at <= $1 RETURNING key", [now])).length;
}
