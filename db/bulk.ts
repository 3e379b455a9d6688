// SQL for bulk payments: batches, their items, and the payout rows a USDT item becomes.
import type { Db } from "./mod.ts";
import type { OutboundRow } from "./outbound.ts";

export type BatchRow = {
  id: string;
  merchant_id: string;
  is_sandbox: boolean;
  rail: "USDT_TRC20" | "MOBILE_MONEY";
  currency: "USDT_TRC20" | "XOF";
  label: string | null;
  status: string;
  item_count: number;
  total_amount: string;
  total_fee: string;
  attempt: number;
  created_at: Date;
  updated_at: Date;
  validated_at: Date | null;
  executed_at: Date | null;
  completed_at: Date | null;
  cancelled_at: Date | null;
  /** Migration 023: why a mobile money batch waits for an operator, and the operator's decision. */
  review_reason: string | null;
  reviewed_by: string | null;
  reviewed_at: Date | null;
  review_note: string | null;
  /** Migration 039: the first of two approvals a batch above the four-eyes amount needs. */
  first_approved_by: string | null;
  first_approved_actor: string | null;
  first_approved_at: Date | null;
};

export type ItemRow = {
  id: string;
  batch_id: string;
  line: number;
  wallet_address: string;
  operator: string | null;
  amount: string;
  fee: string;
  recipient_name: string | null;
  reference: string | null;
  status: string;
  attempt: number;
  payment_id: string | null;
  tx_hash: string | null;
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
};

type Scope = { merchantId: string; isSandbox: boolean };

export async function insertBatch(
  db: Db,
  b: Scope & { id: string; rail: string; currency: string; label: string | null; now: Date },
): Promise<BatchRow> {
  return (await db.query<BatchRow>(
    `INSERT INTO bulk_batches (id, merchant_id, is_sandbox, rail, currency, label, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'DRAFT', $7, $7) RETURNING *`,
    [b.id, b.merchantId, b.isSandbox, b.rail, b.currency, b.label, b.now],
  ))[0];
}

export async function findBatch(db: Db, scope: Scope, id: string): Promise<BatchRow | undefined> {
  return (await db.query<BatchRow>(
    `SELECT * FROM bulk_batches WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3`,
    [id, scope.merchantId, scope.isSandbox],
  ))[0];
}

export async function findBatchById(db: Db, id: string): Promise<BatchRow | undefined> {
  return (await db.query<BatchRow>(`SELECT * FROM bulk_batches WHERE id = $1`, [id]))[0];
}

/** The batch row, locked until the transaction ends (every batch move reads it this way). */
export async function lockBatch(db: Db, id: string): Promise<BatchRow | undefined> {
  return (await db.query<BatchRow>(`SELECT * FROM bulk_batches WHERE id = $1 FOR UPDATE`, [id]))[0];
}

/** Records a held batch's first approval, once: undefined when it is no longer held or already has one. */
export async function recordFirstApproval(
  db: Db,
  id: string,
  by: { reviewer: string; actor: string; now: Date },
): Promise<BatchRow | undefined> {
  return (await db.query<BatchRow>(
    `UPDATE bulk_batches SET first_approved_by = $2, first_approved_actor = $3, first_approved_at = $4,
            updated_at = $4
      WHERE id = $1 AND status = 'PENDING_REVIEW' AND first_approved_actor IS NULL RETURNING *`,
    [id, by.reviewer, by.actor, by.now],
  ))[0];
}

export type BatchPatch = Partial<
  Pick<
    BatchRow,
    | "total_amount"
    | "total_fee"
    | "attempt"
    | "validated_at"
    | "executed_at"
    | "completed_at"
    | "cancelled_at"
    | "review_reason"
    | "reviewed_by"
    | "reviewed_at"
    | "review_note"
  >
>;
const BATCH_PATCHABLE = [
  "total_amount",
  "total_fee",
  "attempt",
  "validated_at",
  "executed_at",
  "completed_at",
  "cancelled_at",
  "review_reason",
  "reviewed_by",
  "reviewed_at",
  "review_note",
] as const;

/** Moves from the state the caller saw; undefined when another move got there first. */
export async function moveBatch(
  db: Db,
  id: string,
  from: string,
  to: string,
  patch: BatchPatch,
  now: Date,
): Promise<BatchRow | undefined> {
  const params: unknown[] = [id, from, to, now];
  const sets = BATCH_PATCHABLE.filter((k) => k in patch).map((k) => {
    params.push(patch[k]);
    return `, ${k} = $${params.length}`;
  });
  return (await db.query<BatchRow>(
    `UPDATE bulk_batches SET status = $3, updated_at = $4${sets.join("")}
      WHERE id = $1 AND status = $2 RETURNING *`,
    params,
  ))[0];
}

export type NewItem = {
  line: number;
  walletAddress: string;
  operator: string | null;
  amount: string;
  fee: string;
  recipientName: string | null;
  reference: string | null;
};

/**
 * Appends items to a batch in one statement, numbered after its existing lines (JSON items count as
 * lines too, so every item keeps a stable number). Answers the new item count.
 */
export async function appendItems(
  db: Db,
  batchId: string,
  items: Array<NewItem & { id: string }>,
  now: Date,
): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($2::text::jsonb) AS r(id text, line int, "walletAddress" text,
         operator text, amount text, fee text, "recipientName" text, reference text)
     ), ins AS (
       INSERT INTO bulk_items (id, batch_id, line, wallet_address, operator, amount, fee, recipient_name,
         reference, status, created_at, updated_at)
       SELECT id, $1, line, "walletAddress", operator, amount::numeric, fee::numeric, "recipientName",
              reference, 'PENDING', $3, $3 FROM input
       RETURNING 1
     )
     UPDATE bulk_batches SET item_count = item_count + (SELECT count(*) FROM ins), updated_at = $3
      WHERE id = $1 RETURNING item_count AS n`,
    [batchId, JSON.stringify(items), now],
  );
  return rows[0].n;
}

export async function listItems(db: Db, batchId: string): Promise<ItemRow[]> {
  return await db.query<ItemRow>(`SELECT * FROM bulk_items WHERE batch_id = $1 ORDER BY line`, [batchId]);
}

export async function itemTotals(
  db: Db,
  batchId: string,
  statuses: readonly string[],
): Promise<{ count: number; amount: string; fee: string }> {
  const rows = await db.query<{ count: number; amount: string; fee: string }>(
    `SELECT count(*)::int AS count, COALESCE(sum(amount), 0)::text AS amount, COALESCE(sum(fee), 0)::text AS fee
       FROM bulk_items WHERE batch_id = $1 AND status = ANY($2::text[])`,
    [batchId, statuses],
  );
  return rows[0];
}

export async function countByStatus(db: Db, batchId: string): Promise<Record<string, number>> {
  const rows = await db.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM bulk_items WHERE batch_id = $1 GROUP BY status`,
    [batchId],
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** Moves every item of the batch in `from` to `to` (and, when queued, to the batch's attempt). */
export async function moveItems(
  db: Db,
  batchId: string,
  from: string,
  to: string,
  now: Date,
  attempt?: number,
): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `UPDATE bulk_items SET status = $3, updated_at = $4, attempt = COALESCE($5, attempt),
            failure_reason = CASE WHEN $3 = 'QUEUED' THEN NULL ELSE failure_reason END,
            payment_id = CASE WHEN $3 = 'QUEUED' THEN NULL ELSE payment_id END,
            tx_hash = CASE WHEN $3 = 'QUEUED' THEN NULL ELSE tx_hash END
      WHERE batch_id = $1 AND status = $2 RETURNING id`,
    [batchId, from, to, now, attempt ?? null],
  );
  return rows.length;
}

/** Up to `limit` queued items, locked; items another process holds are skipped (two dispatchers share). */
export async function claimQueued(db: Db, batchId: string, limit: number): Promise<ItemRow[]> {
  return await db.query<ItemRow>(
    `SELECT * FROM bulk_items WHERE batch_id = $1 AND status = 'QUEUED' ORDER BY line LIMIT $2
       FOR UPDATE SKIP LOCKED`,
    [batchId, limit],
  );
}

/**
 * The payout rows of USDT items, in one statement: PROCESSING, no manual approval, the item's amount and
 * fee (its debit already sits in IN_FLIGHT), keyed by (item, attempt) so a second dispatch cannot insert.
 */
export async function insertItemPayouts(
  db: Db,
  scope: Scope & { batchId: string },
  items: Array<{ payoutId: string; itemId: string }>,
  now: Date,
): Promise<OutboundRow[]> {
  return await db.query<OutboundRow>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($4::text::jsonb) AS r("payoutId" text, "itemId" text)
     )
     INSERT INTO outbound_transfers (id, kind, merchant_id, is_sandbox, status, currency, chain, amount, fee,
       debited, net_amount, destination_address, whitelist_entry_id, external_ref, metadata,
       requires_manual_approval, created_at, updated_at, approved_at, bulk_item_id, bulk_attempt)
     SELECT r."payoutId", 'PAYOUT', $1, $2, 'PROCESSING', 'USDT_TRC20', 'TRON', i.amount, i.fee,
            i.amount + i.fee, i.amount, i.wallet_address, w.id, NULL,
            jsonb_build_object('bulkPaymentId', $3::text, 'bulkItemId', i.id, 'line', i.line)
              || CASE WHEN i.reference IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('reference', i.reference) END,
            false, $5, $5, $5, i.id, i.attempt
       FROM input r JOIN bulk_items i ON i.id = r."itemId"
       LEFT JOIN whitelist_entries w ON w.merchant_id = $1 AND w.is_sandbox = $2 AND w.chain = 'TRON'
                                    AND w.address = i.wallet_address
     RETURNING *`,
    [scope.merchantId, scope.isSandbox, scope.batchId, JSON.stringify(items), now],
  );
}

export async function markItemsProcessing(
  db: Db,
  pairs: Array<{ itemId: string; paymentId: string }>,
  now: Date,
): Promise<void> {
  if (pairs.length === 0) return;
  await db.query(
    `UPDATE bulk_items i SET status = 'PROCESSING', payment_id = r."paymentId", updated_at = $2
       FROM jsonb_to_recordset($1::text::jsonb) AS r("itemId" text, "paymentId" text)
      WHERE i.id = r."itemId" AND i.status = 'QUEUED'`,
    [JSON.stringify(pairs), now],
  );
}

/**
 * Brings the batch's USDT items in line with their payouts: CONFIRMED -> SUCCEEDED, FAILED -> FAILED
 * (its release already returned the money). One statement; answers how many items moved.
 */
export async function syncUsdtItems(db: Db, batchId: string, now: Date): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `UPDATE bulk_items i
        SET status = CASE o.status WHEN 'CONFIRMED' THEN 'SUCCEEDED' ELSE 'FAILED' END,
            tx_hash = o.tx_hash, failure_reason = o.failure_reason, updated_at = $2
       FROM outbound_transfers o
      WHERE i.batch_id = $1 AND i.status = 'PROCESSING' AND o.id = i.payment_id
        AND o.status IN ('CONFIRMED', 'FAILED')
     RETURNING i.id`,
    [batchId, now],
  );
  return rows.length;
}

/** The live state of each item's current payment (status and hash), for the status view. */
export async function paymentStates(
  db: Db,
  batchId: string,
): Promise<Map<string, { status: string; tx_hash: string | null }>> {
  const rows = await db.query<{ item_id: string; status: string; tx_hash: string | null }>(
    `SELECT i.id AS item_id, o.status, o.tx_hash FROM bulk_items i
       JOIN outbound_transfers o ON o.id = i.payment_id WHERE i.batch_id = $1`,
    [batchId],
  );
  return new Map(rows.map((r) => [r.item_id, r]));
}

/** Batches whose items still need a push: dispatch, sync or completion. Oldest first. */
export async function listProcessingBatches(db: Db, limit: number): Promise<Array<{ id: string }>> {
  return await db.query<{ id: string }>(
    `SELECT id FROM bulk_batches WHERE status = 'PROCESSING' ORDER BY updated_at LIMIT $1`,
    [limit],
  );
}

/** Whitelist entries among `addresses` usable for PAYOUT (one query for a whole import). */
export async function payoutWhitelisted(db: Db, scope: Scope, addresses: string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const rows = await db.query<{ address: string }>(
    `SELECT address FROM whitelist_entries
      WHERE merchant_id = $1 AND is_sandbox = $2 AND chain = 'TRON' AND address = ANY($3::text[])
        AND 'PAYOUT' = ANY(usage_contexts)`,
    [scope.merchantId, scope.isSandbox, addresses],
  );
  return new Set(rows.map((r) => r.address));
}

/** The item row, locked until the transaction ends. */
export async function lockItem(db: Db, id: string): Promise<ItemRow | undefined> {
  return (await db.query<ItemRow>(`SELECT * FROM bulk_items WHERE id = $1 FOR UPDATE`, [id]))[0];
}

/** Records an item's end (SUCCEEDED or FAILED) from PROCESSING; undefined when it was not processing. */
export async function finishItem(
  db: Db,
  id: string,
  patch: { status: "SUCCEEDED" | "FAILED"; txHash: string | null; failureReason: string | null },
  now: Date,
): Promise<ItemRow | undefined> {
  return (await db.query<ItemRow>(
    `UPDATE bulk_items SET status = $2, tx_hash = $3, failure_reason = $4, updated_at = $5
      WHERE id = $1 AND status = 'PROCESSING' RETURNING *`,
    [id, patch.status, patch.txHash, patch.failureReason, now],
  ))[0];
}

/** The merchant's mobile money fiat destinations (not deleted) among `phones`, with when each is usable. */
export async function momoDestinations(
  db: Db,
  scope: Scope,
  phones: string[],
): Promise<Map<string, Date>> {
  if (phones.length === 0) return new Map();
  const rows = await db.query<{ momo_phone: string; available_at: Date }>(
    `SELECT momo_phone, min(available_at) AS available_at FROM fiat_destinations
      WHERE merchant_id = $1 AND is_sandbox = $2 AND kind = 'MOMO' AND deleted_at IS NULL
        AND momo_phone = ANY($3::text[])
      GROUP BY momo_phone`,
    [scope.merchantId, scope.isSandbox, phones],
  );
  return new Map(rows.map((r) => [r.momo_phone, new Date(r.available_at)]));
}

/** Batches waiting for an operator, oldest execution first. */
export async function listBatchesInReview(db: Db, limit: number): Promise<BatchRow[]> {
  return await db.query<BatchRow>(
    `SELECT * FROM bulk_batches WHERE status = 'PENDING_REVIEW' ORDER BY executed_at, id LIMIT $1`,
    [limit],
  );
}
