// The reconciliation job's memory per open pay-in or disbursement (backoff, held statuses), and the
// aggregators' own handles for our references (migration 046).
import type { Db } from "./mod.ts";
import type { PayinRow } from "./payins.ts";

export type PollSubject = { kind: "PAYIN" | "DISBURSEMENT"; id: string };

export type PollRow = {
  subject_kind: string;
  subject_id: string;
  provider: string;
  attempts: number;
  next_poll_at: Date;
  held_status: string | null;
  held_at: Date | null;
};

export async function findPoll(db: Db, s: PollSubject): Promise<PollRow | undefined> {
  const rows = await db.query<PollRow>(
    "SELECT * FROM provider_polls WHERE subject_kind = $1 AND subject_id = $2",
    [s.kind, s.id],
  );
  return rows[0];
}

/** Counts one more unanswered poll and sets the next one; `held` records a status nobody knows. */
export async function recordPoll(
  db: Db,
  s: PollSubject,
  p: { provider: string; nextPollAt: Date; held?: string; now: Date },
): Promise<PollRow> {
  const rows = await db.query<PollRow>(
    `INSERT INTO provider_polls AS p (subject_kind, subject_id, provider, attempts, next_poll_at, held_status,
        held_at, updated_at)
     VALUES ($1, $2, $3, 1, $4, $5, CASE WHEN $5::text IS NULL THEN NULL ELSE $6::timestamptz END, $6)
     ON CONFLICT (subject_kind, subject_id) DO UPDATE
        SET attempts = p.attempts + 1, next_poll_at = EXCLUDED.next_poll_at, provider = EXCLUDED.provider,
            held_status = COALESCE(EXCLUDED.held_status, p.held_status),
            held_at = COALESCE(p.held_at, EXCLUDED.held_at), updated_at = EXCLUDED.updated_at
     RETURNING *`,
    [s.kind, s.id, p.provider, p.nextPollAt, p.held ?? null, p.now],
  );
  return rows[0];
}

/** What operators must look at: every subject whose aggregator answered a status the gateway does not know. */
export async function listHeldPolls(db: Db, limit = 100): Promise<PollRow[]> {
  return await db.query<PollRow>(
    "SELECT * FROM provider_polls WHERE held_status IS NOT NULL ORDER BY held_at LIMIT $1",
    [limit],
  );
}

export async function findAggregatorReference(db: Db, provider: string, reference: string) {
  const rows = await db.query<{ provider_ref: string }>(
    "SELECT provider_ref FROM aggregator_references WHERE provider = $1 AND reference = $2",
    [provider, reference],
  );
  return rows[0]?.provider_ref ?? null;
}

/** Keeps the first handle ever stored for a reference and answers it (a racing writer gets the winner's). */
export async function storeAggregatorReference(
  db: Db,
  provider: string,
  reference: string,
  providerRef: string,
): Promise<string> {
  await db.query(
    `INSERT INTO aggregator_references (provider, reference, provider_ref) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING`,
    [provider, reference, providerRef],
  );
  return (await findAggregatorReference(db, provider, reference))!;
}

/**
 * Open card and mobile money pay-ins older than `olderThan` whose next poll is due by `now` (never polled:
 * due). Rows waiting out their backoff are skipped in SQL, so they never crowd the due ones out of `limit`.
 */
export async function listDueFiatPayins(
  db: Db,
  olderThan: Date,
  now: Date,
  limit: number,
): Promise<PayinRow[]> {
  return await db.query<PayinRow>(
    `SELECT p.* FROM payins p
       LEFT JOIN provider_polls pp ON pp.subject_kind = 'PAYIN' AND pp.subject_id = p.id
      WHERE p.status = 'AWAITING_PAYMENT' AND p.payment_method <> 'USDT_TRC20' AND p.created_at <= $1
        AND p.provider_ref IS NOT NULL AND (pp.next_poll_at IS NULL OR pp.next_poll_at <= $2)
      ORDER BY p.created_at LIMIT $3`,
    [olderThan, now, limit],
  );
}

/** Open disbursements untouched since `before` whose next poll is due by `now` (as listDueFiatPayins). */
export async function listDueDisbursements(
  db: Db,
  before: Date,
  now: Date,
  limit: number,
): Promise<Array<{ id: string }>> {
  return await db.query<{ id: string }>(
    `SELECT d.id FROM fiat_disbursements d
       LEFT JOIN provider_polls pp ON pp.subject_kind = 'DISBURSEMENT' AND pp.subject_id = d.id
      WHERE d.status IN ('QUEUED', 'SENDING', 'PENDING') AND d.updated_at <= $1
        AND (pp.next_poll_at IS NULL OR pp.next_poll_at <= $2)
      ORDER BY d.updated_at LIMIT $3`,
    [before, now, limit],
  );
}

/** A held status with what the operator needs to decide: the subject's owner, amount and state. */
export type HeldRow = PollRow & {
  merchant_id: string;
  is_sandbox: boolean;
  amount: string;
  subject_status: string;
  provider_ref: string | null;
};

export const HELD_SELECT = `
  SELECT pp.*, s.merchant_id, s.is_sandbox, s.amount, s.status AS subject_status, s.provider_ref
    FROM provider_polls pp
    JOIN (SELECT 'PAYIN' AS kind, id, merchant_id, is_sandbox, amount::text AS amount, status, provider_ref
            FROM payins WHERE status = 'AWAITING_PAYMENT'
          UNION ALL
          SELECT 'DISBURSEMENT', id, merchant_id, is_sandbox, amount::text, status, provider_ref
            FROM fiat_disbursements WHERE status IN ('QUEUED', 'SENDING', 'PENDING')) s
      ON s.kind = pp.subject_kind AND s.id = pp.subject_id
   WHERE pp.held_status IS NOT NULL`;

/** Held statuses still waiting for an operator: the subject is open (a later known answer settles it). */
export async function listOpenHeld(db: Db, limit: number): Promise<HeldRow[]> {
  return await db.query<HeldRow>(`${HELD_SELECT} ORDER BY pp.held_at, pp.subject_id LIMIT $1`, [limit]);
}

export async function countOpenHeld(db: Db): Promise<Array<{ provider: string; n: number }>> {
  return await db.query<{ provider: string; n: number }>(
    `SELECT h.provider, count(*)::int AS n FROM (${HELD_SELECT}) h GROUP BY h.provider`,
  );
}

/** The poll row, locked: concurrent operator decisions on one subject queue up behind each other. */
export async function lockPoll(db: Db, s: PollSubject): Promise<PollRow | undefined> {
  const rows = await db.query<PollRow>(
    "SELECT * FROM provider_polls WHERE subject_kind = $1 AND subject_id = $2 FOR UPDATE",
    [s.kind, s.id],
  );
  return rows[0];
}

/** An operator decided: the held status is cleared (held_at stays, the audit trail keeps the decision). */
export async function clearHeld(db: Db, s: PollSubject, now: Date): Promise<void> {
  await db.query(
    `UPDATE provider_polls SET held_status = NULL, updated_at = $3
      WHERE subject_kind = $1 AND subject_id = $2`,
    [s.kind, s.id, now],
  );
}
