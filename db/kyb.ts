// SQL for KYB reviews, their documents and question threads (migration 044).
import type { Db } from "./mod.ts";

export type KybReviewStatus = "DRAFT" | "SUBMITTED" | "APPROVED" | "REJECTED";

export type KybReviewRow = {
  merchant_id: string;
  status: KybReviewStatus;
  business: Record<string, unknown>;
  submitted_at: Date | null;
  decided_at: Date | null;
  decided_by: string | null;
  decision_note: string | null;
  updated_at: Date;
};

export type KybDocumentRow = {
  id: string;
  merchant_id: string;
  kind: string;
  file_name: string;
  content_type: string;
  object_key: string;
  size_bytes: number;
  uploaded_at: Date;
};

export type KybThreadRow = {
  id: string;
  merchant_id: string;
  status: "OPEN" | "RESOLVED" | "DISMISSED";
  created_by: string;
  created_at: Date;
  closed_at: Date | null;
  closed_by: string | null;
};

export type KybMessageRow = {
  id: string;
  thread_id: string;
  author: "MERCHANT" | "ADMIN";
  author_name: string;
  body: string;
  created_at: Date;
};

/** The merchant's review row, made DRAFT on first use, locked for the rest of the transaction. */
export async function lockReview(db: Db, merchantId: string, now: Date): Promise<KybReviewRow> {
  await db.query(
    `INSERT INTO kyb_reviews (merchant_id, updated_at) VALUES ($1, $2) ON CONFLICT (merchant_id) DO NOTHING`,
    [merchantId, now],
  );
  return (await db.query<KybReviewRow>("SELECT * FROM kyb_reviews WHERE merchant_id = $1 FOR UPDATE", [
    merchantId,
  ]))[0];
}

export async function findReview(db: Db, merchantId: string): Promise<KybReviewRow | undefined> {
  return (await db.query<KybReviewRow>("SELECT * FROM kyb_reviews WHERE merchant_id = $1", [merchantId]))[0];
}

export async function updateReview(
  db: Db,
  merchantId: string,
  patch: Partial<Omit<KybReviewRow, "merchant_id">>,
): Promise<KybReviewRow> {
  const cols = Object.keys(patch);
  // jsonb goes as text cast twice: postgres.js would otherwise store the JSON text as a JSON string.
  const sets = cols.map((c, i) => `${c} = $${i + 2}${c === "business" ? "::text::jsonb" : ""}`).join(", ");
  const values = cols.map((c) => {
    const v = (patch as Record<string, unknown>)[c];
    return c === "business" ? JSON.stringify(v) : v;
  });
  return (await db.query<KybReviewRow>(
    `UPDATE kyb_reviews SET ${sets} WHERE merchant_id = $1 RETURNING *`,
    [merchantId, ...values],
  ))[0];
}

/** Reviews in a status (all when null), submitted first-come first-served, with their open threads. */
export async function listReviews(
  db: Db,
  status: KybReviewStatus | null,
  limit: number,
): Promise<Array<KybReviewRow & { merchant_name: string; documents: number; open_threads: number }>> {
  return await db.query(
    `SELECT r.*, m.name AS merchant_name,
            (SELECT count(*) FROM kyb_documents d WHERE d.merchant_id = r.merchant_id)::int AS documents,
            (SELECT count(*) FROM kyb_threads t WHERE t.merchant_id = r.merchant_id AND t.status = 'OPEN')::int
              AS open_threads
       FROM kyb_reviews r JOIN merchants m ON m.id = r.merchant_id
      WHERE ($1::text IS NULL OR r.status = $1)
      ORDER BY r.submitted_at ASC NULLS LAST, r.merchant_id
      LIMIT $2`,
    [status, limit],
  );
}

export async function insertDocument(db: Db, row: KybDocumentRow): Promise<void> {
  await db.query(
    `INSERT INTO kyb_documents (id, merchant_id, kind, file_name, content_type, object_key, size_bytes, uploaded_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      row.id,
      row.merchant_id,
      row.kind,
      row.file_name,
      row.content_type,
      row.object_key,
      row.size_bytes,
      row.uploaded_at,
    ],
  );
}

export async function listDocuments(db: Db, merchantId: string): Promise<KybDocumentRow[]> {
  return await db.query<KybDocumentRow>(
    "SELECT * FROM kyb_documents WHERE merchant_id = $1 ORDER BY uploaded_at, id",
    [merchantId],
  );
}

export async function findDocument(
  db: Db,
  merchantId: string,
  id: string,
): Promise<KybDocumentRow | undefined> {
  return (await db.query<KybDocumentRow>(
    "SELECT * FROM kyb_documents WHERE merchant_id = $1 AND id = $2",
    [merchantId, id],
  ))[0];
}

export async function insertThread(db: Db, row: KybThreadRow): Promise<void> {
  await db.query(
    `INSERT INTO kyb_threads (id, merchant_id, status, created_by, created_at) VALUES ($1, $2, 'OPEN', $3, $4)`,
    [row.id, row.merchant_id, row.created_by, row.created_at],
  );
}

export async function findThread(db: Db, id: string): Promise<KybThreadRow | undefined> {
  return (await db.query<KybThreadRow>("SELECT * FROM kyb_threads WHERE id = $1", [id]))[0];
}

export async function lockThread(db: Db, id: string): Promise<KybThreadRow | undefined> {
  return (await db.query<KybThreadRow>("SELECT * FROM kyb_threads WHERE id = $1 FOR UPDATE", [id]))[0];
}

export async function closeThread(
  db: Db,
  id: string,
  status: "RESOLVED" | "DISMISSED",
  by: string,
  at: Date,
): Promise<KybThreadRow> {
  return (await db.query<KybThreadRow>(
    `UPDATE kyb_threads SET status = $2, closed_by = $3, closed_at = $4 WHERE id = $1 RETURNING *`,
    [id, status, by, at],
  ))[0];
}

export async function insertMessage(db: Db, row: KybMessageRow): Promise<void> {
  await db.query(
    `INSERT INTO kyb_messages (id, thread_id, author, author_name, body, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
    [row.id, row.thread_id, row.author, row.author_name, row.body, row.created_at],
  );
}

export async function listThreads(
  db: Db,
  merchantId: string,
): Promise<Array<KybThreadRow & { messages: KybMessageRow[] }>> {
  const threads = await db.query<KybThreadRow>(
    "SELECT * FROM kyb_threads WHERE merchant_id = $1 ORDER BY created_at, id",
    [merchantId],
  );
  if (threads.length === 0) return [];
  const messages = await db.query<KybMessageRow>(
    `SELECT * FROM kyb_messages WHERE thread_id = ANY($1::text[]) ORDER BY created_at, id`,
    [threads.map((t) => t.id)],
  );
  return threads.map((t) => ({ ...t, messages: messages.filter((m) => m.thread_id === t.id) }));
}

export async function countSubmittedReviews(db: Db): Promise<number> {
  return (await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM kyb_reviews WHERE status = 'SUBMITTED'",
  ))[0]
    .n;
}
