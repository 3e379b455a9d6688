// SQL of the mail outbox (migration 021): a message is written with what it reports, then claimed by
// one sender at a time (a lease), and marked sent or failed.
import type { Db } from "./mod.ts";

export type MailRow = {
  id: string;
  merchant_id: string | null;
  is_sandbox: boolean;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  kind: string;
  ref_id: string | null;
  status: "PENDING" | "SENT" | "FAILED";
  attempts: number;
  locked_until: Date | null;
  last_error: string | null;
  sent_at: Date | null;
  created_at: Date;
};

export async function insertMail(
  db: Db,
  m: Pick<
    MailRow,
    | "id"
    | "merchant_id"
    | "is_sandbox"
    | "to_address"
    | "subject"
    | "text_body"
    | "html_body"
    | "kind"
    | "ref_id"
  >,
  now: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO mail_outbox (id, merchant_id, is_sandbox, to_address, subject, text_body, html_body, kind,
       ref_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      m.id,
      m.merchant_id,
      m.is_sandbox,
      m.to_address,
      m.subject,
      m.text_body,
      m.html_body,
      m.kind,
      m.ref_id,
      now,
    ],
  );
}

/** Takes a pending message for `leaseMs` (one sender at a time); undefined when sent, failed or leased. */
export async function claimMail(
  db: Db,
  id: string,
  now: Date,
  leaseMs: number,
): Promise<MailRow | undefined> {
  return (await db.query<MailRow>(
    `UPDATE mail_outbox SET attempts = attempts + 1, locked_until = $3
      WHERE id = $1 AND status = 'PENDING' AND (locked_until IS NULL OR locked_until <= $2) RETURNING *`,
    [id, now, new Date(now.getTime() + leaseMs)],
  ))[0];
}

export async function markMailSent(db: Db, id: string, now: Date): Promise<void> {
  await db.query(
    "UPDATE mail_outbox SET status = 'SENT', sent_at = $2, locked_until = NULL, last_error = NULL WHERE id = $1",
    [id, now],
  );
}

export async function markMailError(db: Db, id: string, error: string, final: boolean): Promise<void> {
  await db.query(
    `UPDATE mail_outbox SET last_error = $2, locked_until = NULL,
       status = CASE WHEN $3::boolean THEN 'FAILED' ELSE status END WHERE id = $1`,
    [id, error.slice(0, 500), final],
  );
}

export async function listPendingMail(db: Db, now: Date, limit: number): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM mail_outbox WHERE status = 'PENDING' AND (locked_until IS NULL OR locked_until <= $1)
      ORDER BY created_at LIMIT $2`,
    [now, limit],
  );
  return rows.map((r) => r.id);
}

export async function listMail(
  db: Db,
  q: { to?: string; refId?: string; limit: number },
): Promise<MailRow[]> {
  return await db.query<MailRow>(
    `SELECT * FROM mail_outbox WHERE ($1::text IS NULL OR to_address = $1) AND ($2::text IS NULL OR ref_id = $2)
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    [q.to ?? null, q.refId ?? null, q.limit],
  );
}
