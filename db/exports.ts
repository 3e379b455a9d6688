// SQL of export jobs and their chunks (migration 027). A runner holds a job by its lease token; every
// write of a chunk checks the token in the same statement, so a runner that lost its lease writes nothing.
import type { Db } from "./mod.ts";

export type ExportJobRow = {
  id: string;
  merchant_id: string;
  is_sandbox: boolean;
  kind: string;
  params: Record<string, unknown>;
  params_key: string;
  status: "QUEUED" | "RUNNING" | "COMPLETED" | "FAILED" | "EXPIRED";
  cursor: unknown;
  rows_written: string | number;
  bytes_written: string | number;
  chunk_count: number;
  failures: number;
  last_error: string | null;
  lease_token: string | null;
  lease_until: Date | null;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  expires_at: Date | null;
};

type Scope = { merchantId: string; isSandbox: boolean };

/** Serializes job creation per merchant (the open-job cap and the reuse of an identical open job). */
export async function lockMerchantExports(db: Db, merchantId: string): Promise<void> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtext('export_jobs:' || $1))`, [merchantId]);
}

export async function findOpenJob(
  db: Db,
  scope: Scope,
  paramsKey: string,
): Promise<ExportJobRow | undefined> {
  return (await db.query<ExportJobRow>(
    `SELECT * FROM export_jobs WHERE merchant_id = $1 AND is_sandbox = $2 AND params_key = $3
        AND status IN ('QUEUED', 'RUNNING')`,
    [scope.merchantId, scope.isSandbox, paramsKey],
  ))[0];
}

export async function countOpenJobs(db: Db, scope: Scope): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM export_jobs WHERE merchant_id = $1 AND is_sandbox = $2
        AND status IN ('QUEUED', 'RUNNING')`,
    [scope.merchantId, scope.isSandbox],
  );
  return row.n;
}

export async function insertJob(
  db: Db,
  j: Scope & { id: string; kind: string; params: unknown; paramsKey: string; now: Date },
): Promise<ExportJobRow> {
  return (await db.query<ExportJobRow>(
    `INSERT INTO export_jobs (id, merchant_id, is_sandbox, kind, params, params_key, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5::text::jsonb, $6, 'QUEUED', $7, $7) RETURNING *`,
    [j.id, j.merchantId, j.isSandbox, j.kind, JSON.stringify(j.params), j.paramsKey, j.now],
  ))[0];
}

export async function findJob(db: Db, scope: Scope, id: string): Promise<ExportJobRow | undefined> {
  return (await db.query<ExportJobRow>(
    `SELECT * FROM export_jobs WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3`,
    [id, scope.merchantId, scope.isSandbox],
  ))[0];
}

/**
 * Takes a job that is queued, or running with its lease run out. A lease that ran out while still held
 * (token set) means its runner died: that counts as a failure. Undefined: someone else holds it, or done.
 */
export async function claimJob(db: Db, id: string, token: string, now: Date, leaseMs: number) {
  return (await db.query<ExportJobRow>(
    `UPDATE export_jobs SET status = 'RUNNING', lease_token = $2, lease_until = $3, updated_at = $4,
            started_at = COALESCE(started_at, $4),
            failures = failures + (CASE WHEN lease_token IS NOT NULL THEN 1 ELSE 0 END)
      WHERE id = $1 AND (status = 'QUEUED' OR (status = 'RUNNING' AND (lease_until IS NULL OR lease_until <= $4)))
      RETURNING *`,
    [id, token, new Date(now.getTime() + leaseMs), now],
  ))[0];
}

/**
 * Appends one chunk and moves the job's position, in one statement, if the runner still holds the job at
 * the position it read (else writes nothing and answers false).
 */
export async function appendChunk(
  db: Db,
  c: {
    jobId: string;
    token: string;
    seq: number;
    rows: number;
    text: string;
    cursor: unknown;
    now: Date;
    leaseMs: number;
  },
): Promise<boolean> {
  const written = await db.query(
    `WITH moved AS (
       UPDATE export_jobs SET cursor = $3::text::jsonb, chunk_count = chunk_count + 1,
              rows_written = rows_written + $4, bytes_written = bytes_written + octet_length($5::text),
              lease_until = $6, updated_at = $7
        WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING' AND chunk_count = $8 RETURNING id
     )
     INSERT INTO export_chunks (job_id, seq, rows, body) SELECT id, $8, $4, $5 FROM moved RETURNING 1`,
    [
      c.jobId,
      c.token,
      JSON.stringify(c.cursor),
      c.rows,
      c.text,
      new Date(c.now.getTime() + c.leaseMs),
      c.now,
      c.seq,
    ],
  );
  return written.length > 0;
}

/** COMPLETED, kept until `expiresAt`; only by the lease holder. */
export async function completeJob(db: Db, id: string, token: string, now: Date, expiresAt: Date) {
  const rows = await db.query(
    `UPDATE export_jobs SET status = 'COMPLETED', completed_at = $3, updated_at = $3, expires_at = $4,
            lease_token = NULL, lease_until = NULL
      WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING' RETURNING 1`,
    [id, token, now, expiresAt],
  );
  return rows.length > 0;
}

/** Hands the job back without a failure (its time slice ended): anyone may take it from `now` on. */
export async function releaseJob(db: Db, id: string, token: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE export_jobs SET lease_token = NULL, lease_until = $3, updated_at = $3
      WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING'`,
    [id, token, now],
  );
}

/** A failed run: retried after `retryAt`, or FAILED for good once `maxFailures` is reached. */
export async function recordFailure(
  db: Db,
  j: { id: string; token: string; error: string; now: Date; retryAt: Date; maxFailures: number },
): Promise<void> {
  await db.query(
    `UPDATE export_jobs SET failures = failures + 1, last_error = $3, lease_token = NULL, lease_until = $5,
            updated_at = $4,
            status = CASE WHEN failures + 1 >= $6 THEN 'FAILED' ELSE status END,
            expires_at = CASE WHEN failures + 1 >= $6 THEN $4::timestamptz + interval '7 days' ELSE expires_at END
      WHERE id = $1 AND lease_token = $2 AND status = 'RUNNING'`,
    [j.id, j.token, j.error.slice(0, 500), j.now, j.retryAt, j.maxFailures],
  );
}

/** A job that failed too often for good: marked FAILED by whoever claimed it last. */
export async function failJob(db: Db, id: string, token: string, error: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE export_jobs SET status = 'FAILED', last_error = $3, lease_token = NULL, lease_until = NULL,
            updated_at = $4, expires_at = $4::timestamptz + interval '7 days'
      WHERE id = $1 AND lease_token = $2`,
    [id, token, error.slice(0, 500), now],
  );
}

/** Jobs a runner may take now: queued, or running with no live lease. Oldest first. */
export async function listDueJobs(db: Db, now: Date, limit: number): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM export_jobs WHERE status IN ('QUEUED', 'RUNNING')
        AND (lease_until IS NULL OR lease_until <= $1)
      ORDER BY lease_until NULLS FIRST, created_at LIMIT $2`,
    [now, limit],
  );
  return rows.map((r) => r.id);
}

export async function readChunk(db: Db, jobId: string, seq: number): Promise<string | undefined> {
  const [row] = await db.query<{ body: string }>(
    `SELECT body FROM export_chunks WHERE job_id = $1 AND seq = $2`,
    [jobId, seq],
  );
  return row?.body;
}

/** Files past their time: chunks deleted, the job kept as EXPIRED (its status still answers). */
export async function expireJobs(db: Db, now: Date, limit: number): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `WITH due AS (
       SELECT id FROM export_jobs WHERE status IN ('COMPLETED', 'FAILED') AND expires_at <= $1
        ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED
     ), gone AS (
       DELETE FROM export_chunks WHERE job_id IN (SELECT id FROM due)
     )
     UPDATE export_jobs SET status = 'EXPIRED', updated_at = $1 WHERE id IN (SELECT id FROM due) RETURNING id`,
    [now, limit],
  );
  return rows.length;
}
