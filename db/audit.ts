// SQL of the audit trail (migration 029). Appends only: there is no update or delete here.
import type { Db } from "./mod.ts";

export type AuditRow = {
  seq: string;
  at: Date;
  actor_kind: "token" | "operator" | "cli";
  actor_id: string;
  actor_label: string;
  role: string;
  client_address: string;
  action: string;
  item_type: string | null;
  item_id: string | null;
  note: string | null;
  before: unknown;
  after: unknown;
  prev_hash: string;
  hash: string;
};

/** Any constant works; it only has to be the same in every process of this gateway. */
const AUDIT_LOCK_ID = 727_022;

/** Serializes appends until the transaction ends, then reads the chain's last link. */
export async function lockChainHead(tx: Db): Promise<{ seq: string; hash: string } | undefined> {
  await tx.query("SELECT pg_advisory_xact_lock($1)", [AUDIT_LOCK_ID]);
  return (await tx.query<{ seq: string; hash: string }>(
    `SELECT seq::text AS seq, hash FROM audit_records ORDER BY audit_records.seq DESC LIMIT 1`,
  ))[0];
}

export async function insertAuditRow(tx: Db, r: Omit<AuditRow, "seq"> & { seq: number }): Promise<void> {
  await tx.query(
    `INSERT INTO audit_records (seq, at, actor_kind, actor_id, actor_label, role, client_address, action,
       item_type, item_id, note, before, after, prev_hash, hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::text::jsonb, $13::text::jsonb, $14, $15)`,
    [
      r.seq,
      r.at,
      r.actor_kind,
      r.actor_id,
      r.actor_label,
      r.role,
      r.client_address,
      r.action,
      r.item_type,
      r.item_id,
      r.note,
      r.before === null ? null : JSON.stringify(r.before),
      r.after === null ? null : JSON.stringify(r.after),
      r.prev_hash,
      r.hash,
    ],
  );
}

const COLUMNS = `seq::text AS seq, at, actor_kind, actor_id, actor_label, role, client_address, action,
  item_type, item_id, note, before, after, prev_hash, hash`;

/** Records after `afterSeq`, in chain order. */
export async function auditPage(db: Db, afterSeq: string, limit: number): Promise<AuditRow[]> {
  return await db.query<AuditRow>(
    `SELECT ${COLUMNS} FROM audit_records WHERE seq > $1::bigint ORDER BY audit_records.seq LIMIT $2`,
    [afterSeq, limit],
  );
}

export async function auditOfItem(db: Db, itemId: string, limit: number): Promise<AuditRow[]> {
  return await db.query<AuditRow>(
    `SELECT ${COLUMNS} FROM audit_records WHERE item_id = $1 ORDER BY audit_records.seq LIMIT $2`,
    [itemId, limit],
  );
}

/** Records of [from, to) after `afterSeq`, in chain order. */
export async function auditOfPeriod(
  db: Db,
  p: { from: Date; to: Date; afterSeq: string; limit: number },
): Promise<AuditRow[]> {
  return await db.query<AuditRow>(
    `SELECT ${COLUMNS} FROM audit_records WHERE at >= $1 AND at < $2 AND seq > $3::bigint
      ORDER BY audit_records.seq LIMIT $4`,
    [p.from, p.to, p.afterSeq, p.limit],
  );
}
