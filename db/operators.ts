// SQL of operator accounts, their backup codes and their sessions (migration 028).
import type { Db } from "./mod.ts";

export type OperatorRow = {
  id: string;
  email: string;
  role: "viewer" | "reviewer" | "admin";
  password_hash: string;
  totp_secret: string;
  last_totp_step: string | null;
  failed_attempts: number;
  last_failed_at: Date | null;
  locked_until: Date | null;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export async function insertOperator(
  db: Db,
  o: { id: string; email: string; role: string; passwordHash: string; totpSecret: string; now: Date },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO operators (id, email, role, password_hash, totp_secret, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (email) DO NOTHING RETURNING id`,
    [o.id, o.email, o.role, o.passwordHash, o.totpSecret, o.now],
  );
  return rows.length === 1;
}

export async function insertBackupCodes(db: Db, operatorId: string, hashes: string[]): Promise<void> {
  await db.query(
    `INSERT INTO operator_backup_codes (operator_id, code_hash) SELECT $1, unnest($2::text[])`,
    [operatorId, hashes],
  );
}

export async function findOperatorByEmail(db: Db, email: string): Promise<OperatorRow | undefined> {
  return (await db.query<OperatorRow>(`SELECT * FROM operators WHERE email = $1`, [email]))[0];
}

export async function findOperator(db: Db, id: string): Promise<OperatorRow | undefined> {
  return (await db.query<OperatorRow>(`SELECT * FROM operators WHERE id = $1`, [id]))[0];
}

export async function lockOperatorRow(db: Db, id: string): Promise<OperatorRow | undefined> {
  return (await db.query<OperatorRow>(`SELECT * FROM operators WHERE id = $1 FOR UPDATE`, [id]))[0];
}

export async function listOperators(db: Db): Promise<OperatorRow[]> {
  return await db.query<OperatorRow>(`SELECT * FROM operators ORDER BY created_at, id`);
}

/**
 * Counts a failed sign-in in one statement (concurrent failures all count) and locks the account once
 * `lockAfter` failures in a row are reached. Returns the row as it is now.
 */
export async function recordFailedSignIn(
  db: Db,
  id: string,
  f: { now: Date; lockAfter: number; lockUntil: Date },
): Promise<OperatorRow | undefined> {
  return (await db.query<OperatorRow>(
    `UPDATE operators SET failed_attempts = failed_attempts + 1, last_failed_at = $2, updated_at = $2,
       locked_until = CASE WHEN failed_attempts + 1 >= $3 THEN $4 ELSE locked_until END
     WHERE id = $1 RETURNING *`,
    [id, f.now, f.lockAfter, f.lockUntil],
  ))[0];
}

/** A good sign-in: the failures are forgotten. */
export async function clearFailedSignIns(db: Db, id: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE operators SET failed_attempts = 0, locked_until = NULL, updated_at = $2
     WHERE id = $1 AND (failed_attempts > 0 OR locked_until IS NOT NULL)`,
    [id, now],
  );
}

/**
 * Takes a TOTP time step once: only when it is later than the last one taken. Two sign-ins racing with the
 * same code: one row is updated, the other finds none (a replay).
 */
export async function takeTotpStep(db: Db, id: string, step: number, now: Date): Promise<boolean> {
  const rows = await db.query(
    `UPDATE operators SET last_totp_step = $2, updated_at = $3
     WHERE id = $1 AND (last_totp_step IS NULL OR last_totp_step < $2) RETURNING id`,
    [id, step, now],
  );
  return rows.length === 1;
}

/** Uses a backup code once; false when it is unknown or already used. */
export async function useBackupCode(db: Db, id: string, hash: string, now: Date): Promise<boolean> {
  const rows = await db.query(
    `UPDATE operator_backup_codes SET used_at = $3
     WHERE operator_id = $1 AND code_hash = $2 AND used_at IS NULL RETURNING code_hash`,
    [id, hash, now],
  );
  return rows.length === 1;
}

export async function countUnusedBackupCodes(db: Db, id: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM operator_backup_codes WHERE operator_id = $1 AND used_at IS NULL`,
    [id],
  );
  return rows[0].n;
}

export async function updateOperatorRow(
  db: Db,
  id: string,
  patch: { role?: string; disabled?: boolean; unlock?: boolean },
  now: Date,
): Promise<OperatorRow | undefined> {
  return (await db.query<OperatorRow>(
    `UPDATE operators SET role = COALESCE($2, role),
       disabled_at = CASE WHEN $3::boolean IS NULL THEN disabled_at WHEN $3 THEN COALESCE(disabled_at, $5)
                          ELSE NULL END,
       failed_attempts = CASE WHEN $4 THEN 0 ELSE failed_attempts END,
       locked_until = CASE WHEN $4 THEN NULL ELSE locked_until END,
       updated_at = $5
     WHERE id = $1 RETURNING *`,
    [id, patch.role ?? null, patch.disabled ?? null, patch.unlock === true, now],
  ))[0];
}

export type SessionRow = {
  id: string;
  operator_id: string;
  csrf_token: string;
  client_address: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
};

export async function insertSession(
  db: Db,
  s: {
    tokenHash: string;
    id: string;
    operatorId: string;
    csrfToken: string;
    clientAddress: string;
    now: Date;
    expiresAt: Date;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO operator_sessions
       (token_hash, id, operator_id, csrf_token, client_address, created_at, last_seen_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6, $7)`,
    [s.tokenHash, s.id, s.operatorId, s.csrfToken, s.clientAddress, s.now, s.expiresAt],
  );
}

export type LiveSession = SessionRow & { email: string; role: OperatorRow["role"] };

/**
 * The session of this token if it is still alive (not ended, not past its end, used within `idleSince`),
 * its operator enabled; its last use is moved to `now` in the same statement.
 */
export async function touchSession(
  db: Db,
  tokenHash: string,
  t: { now: Date; idleSince: Date },
): Promise<LiveSession | undefined> {
  return (await db.query<LiveSession>(
    `UPDATE operator_sessions s SET last_seen_at = $2
       FROM operators o
      WHERE s.token_hash = $1 AND o.id = s.operator_id AND s.ended_at IS NULL AND s.expires_at > $2
        AND s.last_seen_at > $3 AND o.disabled_at IS NULL
      RETURNING s.id, s.operator_id, s.csrf_token, s.client_address, s.created_at, s.last_seen_at,
        s.expires_at, o.email, o.role`,
    [tokenHash, t.now, t.idleSince],
  ))[0];
}

export async function endSession(db: Db, id: string, now: Date): Promise<void> {
  await db.query(`UPDATE operator_sessions SET ended_at = $2 WHERE id = $1 AND ended_at IS NULL`, [id, now]);
}

export async function endOperatorSessions(db: Db, operatorId: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE operator_sessions SET ended_at = $2 WHERE operator_id = $1 AND ended_at IS NULL`,
    [operatorId, now],
  );
}

/** Self-service (domain/operators/self_service.ts): a new password hash. */
export async function setPasswordHash(db: Db, id: string, hash: string, now: Date): Promise<void> {
  await db.query(`UPDATE operators SET password_hash = $2, updated_at = $3 WHERE id = $1`, [id, hash, now]);
}

/** A new TOTP secret (sealed), with the step that confirmed it taken: that code cannot sign in again. */
export async function setTotpSecret(
  db: Db,
  id: string,
  sealed: string,
  step: number,
  now: Date,
): Promise<void> {
  await db.query(
    `UPDATE operators SET totp_secret = $2, last_totp_step = $3, updated_at = $4 WHERE id = $1`,
    [id, sealed, step, now],
  );
}

/** Every backup code of the operator, used or not, replaced by these. */
export async function replaceBackupCodes(db: Db, id: string, hashes: string[]): Promise<void> {
  await db.query(`DELETE FROM operator_backup_codes WHERE operator_id = $1`, [id]);
  await insertBackupCodes(db, id, hashes);
}
