// SQL for disputes and their evidence files. State changes go through `moveDispute`, which moves only
// from the state the caller read under its row lock (domain/disputes/states.ts says which moves exist).
import type { Db } from "./mod.ts";

export type DisputeRow = {
  id: string;
  merchant_id: string;
  is_sandbox: boolean;
  payin_id: string;
  status: string;
  source: "PROVIDER" | "OPERATOR";
  case_ref: string;
  reason: string;
  card_origin: "LOCAL" | "INTERNATIONAL";
  currency: "USDT_TRC20" | "XOF";
  rail: "TRC20" | "MOMO" | "CARD";
  amount: string;
  held: string;
  shortfall: string;
  hold_steps: number;
  evidence_due_at: Date;
  evidence_text: string | null;
  evidence_submitted_at: Date | null;
  outcome: string | null;
  decided_by: string | null;
  decision_note: string | null;
  opened_by: string;
  escalated_at: Date | null;
  closed_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export type DisputeFileRow = {
  id: string;
  dispute_id: string;
  object_key: string;
  content_type: string;
  size_bytes: number;
  file_name: string;
  created_at: Date;
};

export type NewDispute = {
  id: string;
  merchantId: string;
  isSandbox: boolean;
  payinId: string;
  source: DisputeRow["source"];
  caseRef: string;
  reason: string;
  cardOrigin: DisputeRow["card_origin"];
  currency: string;
  rail: string;
  amount: string;
  dueAt: Date;
  openedBy: string;
  now: Date;
};

/** Inserts the dispute unless its case is known; undefined when it was (a repeated notification). */
export async function insertDispute(db: Db, d: NewDispute): Promise<DisputeRow | undefined> {
  return (await db.query<DisputeRow>(
    `INSERT INTO disputes (id, merchant_id, is_sandbox, payin_id, status, source, case_ref, reason,
       card_origin, currency, rail, amount, evidence_due_at, opened_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'OPEN', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14)
     ON CONFLICT (source, case_ref) DO NOTHING RETURNING *`,
    [
      d.id,
      d.merchantId,
      d.isSandbox,
      d.payinId,
      d.source,
      d.caseRef,
      d.reason,
      d.cardOrigin,
      d.currency,
      d.rail,
      d.amount,
      d.dueAt,
      d.openedBy,
      d.now,
    ],
  ))[0];
}

export async function findDisputeByCase(db: Db, source: string, caseRef: string) {
  return (await db.query<DisputeRow>("SELECT * FROM disputes WHERE source = $1 AND case_ref = $2", [
    source,
    caseRef,
  ]))[0];
}

export async function findDispute(db: Db, id: string): Promise<DisputeRow | undefined> {
  return (await db.query<DisputeRow>("SELECT * FROM disputes WHERE id = $1", [id]))[0];
}

export async function lockDispute(db: Db, id: string): Promise<DisputeRow | undefined> {
  return (await db.query<DisputeRow>("SELECT * FROM disputes WHERE id = $1 FOR UPDATE", [id]))[0];
}

export async function findDisputeOf(
  db: Db,
  owner: { merchantId: string; isSandbox: boolean },
  id: string,
): Promise<DisputeRow | undefined> {
  return (await db.query<DisputeRow>(
    "SELECT * FROM disputes WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3",
    [id, owner.merchantId, owner.isSandbox],
  ))[0];
}

export async function listDisputesOf(
  db: Db,
  owner: { merchantId: string; isSandbox: boolean },
  q: { page: number; limit: number; status?: string; payinId?: string },
): Promise<{ rows: DisputeRow[]; total: number }> {
  const params = [owner.merchantId, owner.isSandbox, q.status ?? null, q.payinId ?? null];
  const where = `merchant_id = $1 AND is_sandbox = $2 AND ($3::text IS NULL OR status = $3)
     AND ($4::text IS NULL OR payin_id = $4)`;
  const rows = await db.query<DisputeRow>(
    `SELECT * FROM disputes WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6`,
    [...params, q.limit, (q.page - 1) * q.limit],
  );
  const [{ n }] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM disputes WHERE ${where}`,
    params,
  );
  return { rows, total: n };
}

/** Every dispute of every merchant for the operator, newest first, optionally by status. */
export async function listAllDisputes(
  db: Db,
  q: { status?: string; merchantId?: string; limit: number },
): Promise<DisputeRow[]> {
  return await db.query<DisputeRow>(
    `SELECT * FROM disputes WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR merchant_id = $2)
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    [q.status ?? null, q.merchantId ?? null, q.limit],
  );
}

/** Disputes waiting for an operator (the queue's count): not closed. */
export async function countOpenDisputes(db: Db): Promise<number> {
  return (await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM disputes WHERE status IN ('OPEN', 'UNDER_REVIEW', 'ESCALATED')",
  ))[0].n;
}

/** What other disputes of a pay-in still claim (not won by the merchant): a pay-in is disputed once over. */
export async function claimedOnPayin(db: Db, payinId: string): Promise<string> {
  return (await db.query<{ s: string }>(
    "SELECT coalesce(sum(amount), 0)::text AS s FROM disputes WHERE payin_id = $1 AND status <> 'RESOLVED'",
    [payinId],
  ))[0].s;
}

export type DisputePatch = Partial<{
  status: string;
  held: string;
  shortfall: string;
  hold_steps: number;
  evidence_text: string | null;
  evidence_submitted_at: Date;
  outcome: string;
  decided_by: string;
  decision_note: string | null;
  escalated_at: Date;
  closed_at: Date;
}>;

const PATCHABLE = new Set([
  "status",
  "held",
  "shortfall",
  "hold_steps",
  "evidence_text",
  "evidence_submitted_at",
  "outcome",
  "decided_by",
  "decision_note",
  "escalated_at",
  "closed_at",
]);

/** Applies `patch` if the dispute is still in `from`; undefined when it moved meanwhile. */
export async function moveDispute(
  db: Db,
  id: string,
  from: string,
  patch: DisputePatch,
  now: Date,
): Promise<DisputeRow | undefined> {
  const entries = Object.entries(patch).filter(([k, v]) => PATCHABLE.has(k) && v !== undefined);
  const sets = entries.map(([k], i) => `${k} = $${i + 4}`);
  return (await db.query<DisputeRow>(
    `UPDATE disputes SET ${[...sets, "updated_at = $3"].join(", ")}
      WHERE id = $1 AND status = $2 RETURNING *`,
    [id, from, now, ...entries.map(([, v]) => v)],
  ))[0];
}

/** Open disputes whose evidence deadline passed (the deadline job's work), oldest first. */
export async function listOverdue(db: Db, now: Date, limit: number): Promise<Array<{ id: string }>> {
  return await db.query<{ id: string }>(
    "SELECT id FROM disputes WHERE status = 'OPEN' AND evidence_due_at <= $1 ORDER BY evidence_due_at LIMIT $2",
    [now, limit],
  );
}

/** Disputes that still owe money, oldest first (the sweep collects from the wallet's next credits). */
export async function listOwing(db: Db, limit: number): Promise<Array<{ id: string }>> {
  return await db.query<{ id: string }>(
    "SELECT id FROM disputes WHERE shortfall > 0 ORDER BY created_at LIMIT $1",
    [limit],
  );
}

export async function insertDisputeFile(db: Db, f: DisputeFileRow): Promise<void> {
  await db.query(
    `INSERT INTO dispute_files (id, dispute_id, object_key, content_type, size_bytes, file_name, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (dispute_id, object_key) DO NOTHING`,
    [f.id, f.dispute_id, f.object_key, f.content_type, f.size_bytes, f.file_name, f.created_at],
  );
}

export async function listDisputeFiles(db: Db, disputeIds: string[]): Promise<DisputeFileRow[]> {
  if (disputeIds.length === 0) return [];
  return await db.query<DisputeFileRow>(
    `SELECT * FROM dispute_files WHERE dispute_id IN (SELECT jsonb_array_elements_text($1::text::jsonb))
      ORDER BY seq`,
    [JSON.stringify(disputeIds)],
  );
}

/** Locks the merchant's wallet of a currency and rail for a hold, and reads its balance. */
export async function lockWallet(
  db: Db,
  w: { merchantId: string; isSandbox: boolean; currency: string; rail: string },
): Promise<{ id: string; balance: string } | undefined> {
  return (await db.query<{ id: string; balance: string }>(
    `SELECT id, balance::text AS balance FROM accounts
      WHERE merchant_id = $1 AND is_sandbox = $2 AND kind = 'WALLET' AND currency = $3 AND rail = $4
      FOR NO KEY UPDATE`,
    [w.merchantId, w.isSandbox, w.currency, w.rail],
  ))[0];
}

/** What a merchant's disputes hold and are still owed, per rail, in one mode (the balances view). */
export async function disputeFiguresByRail(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
): Promise<Array<{ rail: string; held: string; owed: string }>> {
  return await db.query(
    `SELECT rail, sum(held)::text AS held, sum(shortfall)::text AS owed FROM disputes
      WHERE merchant_id = $1 AND is_sandbox = $2 AND (held > 0 OR shortfall > 0) GROUP BY rail`,
    [scope.merchantId, scope.isSandbox],
  );
}

/** Which of these pay-ins a dispute was ever opened on (whatever its outcome). */
export async function disputedPayins(db: Db, payinIds: string[]): Promise<Set<string>> {
  if (payinIds.length === 0) return new Set();
  const rows = await db.query<{ payin_id: string }>(
    "SELECT DISTINCT payin_id FROM disputes WHERE payin_id = ANY($1::text[])",
    [payinIds],
  );
  return new Set(rows.map((r) => r.payin_id));
}
