// SQL of the console's long lists, paged by keyset (never OFFSET): each row carries `cursor_at`, its
// ordering timestamp to the microsecond as text, so the next page starts exactly after the last row shown
// (ties broken by id). `after`: the last row of the previous page, or null for the first page.
import type { Db } from "./mod.ts";
import type { KybReviewRow } from "./kyb.ts";
import type { MerchantRow } from "./merchants.ts";
import type { OutboundRow } from "./outbound.ts";
import { HELD_SELECT, type HeldRow } from "./provider_polls.ts";
import type { RefundRow } from "./refunds.ts";
import type { BatchRow } from "./bulk.ts";

export type After = { at: string; id: string } | null;
export type Keyed = { cursor_at: string };

const at = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at`;

/** Payouts and withdrawals waiting for a reviewer, oldest first. */
export async function awaitingReviewPage(db: Db, after: After, limit: number) {
  return await db.query<OutboundRow & Keyed>(
    `SELECT *, ${at("created_at")} FROM outbound_transfers
      WHERE status IN ('PENDING', 'PENDING_REVIEW')
        AND ($1::timestamptz IS NULL OR (created_at, id) > ($1::timestamptz, $2::text))
      ORDER BY created_at, id LIMIT $3`,
    [after?.at ?? null, after?.id ?? null, limit],
  );
}

/** Merchants, newest first; `q`: an id or (as `pattern`, an escaped ILIKE pattern) part of a name. */
export async function merchantsPage(
  db: Db,
  f: { q: string | null; pattern: string | null; status: string | null },
  after: After,
  limit: number,
) {
  return await db.query<MerchantRow & Keyed>(
    `SELECT *, ${at("created_at")} FROM merchants
      WHERE ($1::text IS NULL OR id = $1 OR name ILIKE $2 OR display_name ILIKE $2)
        AND ($3::text IS NULL OR status = $3)
        AND ($4::timestamptz IS NULL OR (created_at, id) < ($4::timestamptz, $5::text))
      ORDER BY created_at DESC, id DESC LIMIT $6`,
    [f.q, f.pattern, f.status, after?.at ?? null, after?.id ?? null, limit],
  );
}

/** KYB reviews SUBMITTED, first come first served, with their document and open-thread counts. */
export async function submittedKybPage(db: Db, after: After, limit: number) {
  return await db.query<
    KybReviewRow & Keyed & { merchant_name: string; documents: number; open_threads: number }
  >(
    `SELECT r.*, m.name AS merchant_name, ${at("r.submitted_at")},
            (SELECT count(*) FROM kyb_documents d WHERE d.merchant_id = r.merchant_id)::int AS documents,
            (SELECT count(*) FROM kyb_threads t WHERE t.merchant_id = r.merchant_id AND t.status = 'OPEN')::int
              AS open_threads
       FROM kyb_reviews r JOIN merchants m ON m.id = r.merchant_id
      WHERE r.status = 'SUBMITTED'
        AND ($1::timestamptz IS NULL OR (r.submitted_at, r.merchant_id) > ($1::timestamptz, $2::text))
      ORDER BY r.submitted_at, r.merchant_id LIMIT $3`,
    [after?.at ?? null, after?.id ?? null, limit],
  );
}

/** Held aggregator statuses whose subject is still open, oldest first (the id: the pay-in or disbursement). */
export async function heldPage(db: Db, after: After, limit: number) {
  return await db.query<HeldRow & Keyed>(
    `SELECT h.*, ${at("h.held_at")} FROM (${HELD_SELECT}) h
      WHERE ($1::timestamptz IS NULL OR (h.held_at, h.subject_id) > ($1::timestamptz, $2::text))
      ORDER BY h.held_at, h.subject_id LIMIT $3`,
    [after?.at ?? null, after?.id ?? null, limit],
  );
}

/** One held status still waiting for an operator, or undefined. */
export async function findOpenHeldRow(db: Db, kind: string, id: string): Promise<HeldRow | undefined> {
  return (await db.query<HeldRow>(
    `${HELD_SELECT} AND pp.subject_kind = $1 AND pp.subject_id = $2`,
    [kind, id],
  ))[0];
}

/** Refunds waiting for an operator, oldest first. */
export async function refundsAwaitingPage(db: Db, after: After, limit: number) {
  return await db.query<RefundRow & Keyed>(
    `SELECT *, ${at("created_at")} FROM refunds WHERE status = 'PENDING_APPROVAL'
        AND ($1::timestamptz IS NULL OR (created_at, id) > ($1::timestamptz, $2::text))
      ORDER BY created_at, id LIMIT $3`,
    [after?.at ?? null, after?.id ?? null, limit],
  );
}

/** Bulk batches held for review, in the order they were executed. */
export async function batchesInReviewPage(db: Db, after: After, limit: number) {
  return await db.query<BatchRow & Keyed>(
    `SELECT *, ${at("executed_at")} FROM bulk_batches WHERE status = 'PENDING_REVIEW'
        AND ($1::timestamptz IS NULL OR (executed_at, id) > ($1::timestamptz, $2::text))
      ORDER BY executed_at, id LIMIT $3`,
    [after?.at ?? null, after?.id ?? null, limit],
  );
}

export async function countMerchants(
  db: Db,
  f: { q: string | null; pattern: string | null; status: string | null },
) {
  return (await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM merchants
      WHERE ($1::text IS NULL OR id = $1 OR name ILIKE $2 OR display_name ILIKE $2) AND ($3::text IS NULL OR status = $3)`,
    [f.q, f.pattern, f.status],
  ))[0].n;
}
