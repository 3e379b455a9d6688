// SQL of the operator's search and merchant list (migration 031): one indexed lookup per kind of record.
import type { Db } from "./mod.ts";
import type { MerchantRow } from "./merchants.ts";

export type FoundRow = {
  type:
    | "PAYIN"
    | "PAYOUT"
    | "WITHDRAWAL"
    | "CONVERSION"
    | "BULK_ITEM"
    | "BULK_BATCH"
    | "SWEEP"
    | "REFUND"
    | "DISPUTE";
  id: string;
  /** A bulk item's batch (its screen is the batch's); null for every other type. */
  batch_id: string | null;
  merchant_id: string | null;
  is_sandbox: boolean | null;
  status: string;
  amount: string;
  currency: string;
  created_at: Date;
  matched: string;
};

/**
 * Every record whose id, transaction hash, externalRef, provider reference, customer e-mail or phone,
 * recipient or address is `q` (`phones`: the forms a phone number may be stored in). Newest first.
 * Refunds and disputes are found by their id, their provider reference or case, and their pay-in's id;
 * a bulk batch by its id.
 */
export async function findRecords(db: Db, q: string, phones: string[], limit: number): Promise<FoundRow[]> {
  // The phone arms are written only when `q` reads as a phone number. An arm `col = ANY('{}')` is
  // constant-false, and PostgreSQL serves it in a BitmapOr with any partial index of the table (false
  // implies every predicate): a read of all open pay-ins or of every sent payout's hash, for nothing.
  const phoneArm = (column: string) => phones.length > 0 ? `OR ${column} = ANY($3::text[])` : "";
  // Every branch is a handful of index lookups, but the estimates of a repeated e-mail or of a hash in
  // the sweeps' arrays grow with the history until PostgreSQL plans parallel workers: their start-up
  // (tens of ms on a busy machine) then costs more than the whole search. Serial, for this statement only.
  return await db.tx(async (tx) => {
    if (tx.driver === "postgres" && !db.inTransaction) {
      await tx.query("SET LOCAL max_parallel_workers_per_gather = 0");
    }
    return await findRecordsSql(tx, q, phones, limit, phoneArm);
  });
}

function findRecordsSql(
  db: Db,
  q: string,
  phones: string[],
  limit: number,
  phoneArm: (column: string) => string,
): Promise<FoundRow[]> {
  return db.query<FoundRow>(
    `SELECT * FROM (
       SELECT 'PAYIN' AS type, id, NULL::text AS batch_id, merchant_id, is_sandbox, status, amount::text AS amount,
              currency, created_at,
              CASE WHEN id = $1 THEN 'id' WHEN tx_hash = $1 THEN 'txHash' WHEN external_ref = $1 THEN 'externalRef'
                   WHEN provider_ref = $1 THEN 'providerRef' WHEN lower(customer_email) = lower($1)
                   THEN 'customerEmail' ELSE 'customerPhone' END AS matched
         FROM payins
        WHERE id = $1 OR tx_hash = $1 OR external_ref = $1 OR provider_ref = $1
           OR lower(customer_email) = lower($1) ${phoneArm("customer_phone")}
       UNION ALL
       SELECT kind, id, NULL, merchant_id, is_sandbox, status, amount::text, currency, created_at,
              CASE WHEN id = $1 THEN 'id' WHEN tx_hash = $1 THEN 'txHash' WHEN external_ref = $1 THEN 'externalRef'
                   WHEN provider_ref = $1 THEN 'providerRef' ELSE 'destination' END
         FROM outbound_transfers
        -- A USDT refund's transfer (kind REFUND) is its refund's business, not a payout to list here.
        WHERE kind <> 'REFUND' AND (id = $1 OR tx_hash = $1 OR external_ref = $1 OR provider_ref = $1
           OR destination_address = $1 ${phoneArm("destination_address")})
       UNION ALL
       SELECT 'CONVERSION', id, NULL, merchant_id, is_sandbox, status, from_amount::text, from_currency, created_at, 'id'
         FROM conversions WHERE id = $1
       UNION ALL
       SELECT 'BULK_ITEM', i.id, i.batch_id, b.merchant_id, b.is_sandbox, i.status, i.amount::text, b.currency, i.created_at,
              CASE WHEN i.id = $1 THEN 'id' WHEN i.tx_hash = $1 THEN 'txHash' WHEN i.reference = $1 THEN 'reference'
                   ELSE 'recipient' END
         FROM bulk_items i JOIN bulk_batches b ON b.id = i.batch_id
        WHERE i.id = $1 OR i.tx_hash = $1 OR i.reference = $1 OR i.wallet_address = $1
           ${phoneArm("i.wallet_address")}
       UNION ALL
       SELECT 'BULK_BATCH', id, NULL, merchant_id, is_sandbox, status, total_amount::text, currency, created_at, 'id'
         FROM bulk_batches WHERE id = $1
       UNION ALL
       SELECT 'SWEEP', id, NULL, NULL, NULL, status, (units / 1000000)::text, 'USDT_TRC20', created_at,
              CASE WHEN id = $1 THEN 'id' WHEN address = $1 THEN 'address' ELSE 'txHash' END
         FROM sweeps
        -- Containment rather than $1 = ANY(tx_ids), the same answer, so the GIN index on tx_ids serves it.
        WHERE id = $1 OR address = $1 OR step_tx_id = $1 OR tx_ids @> ARRAY[$1]::text[]
       UNION ALL
       SELECT 'REFUND', id, NULL, merchant_id, is_sandbox, status, amount::text, currency, created_at,
              CASE WHEN id = $1 THEN 'id' WHEN provider_ref = $1 THEN 'providerRef' ELSE 'payinId' END
         FROM refunds WHERE id = $1 OR provider_ref = $1 OR payin_id = $1
       UNION ALL
       SELECT 'DISPUTE', id, NULL, merchant_id, is_sandbox, status, amount::text, currency, created_at,
              CASE WHEN id = $1 THEN 'id' WHEN payin_id = $1 THEN 'payinId' ELSE 'caseRef' END
         FROM disputes
        -- (source, case_ref) is the unique index: naming both sources lets PostgreSQL use it.
        WHERE id = $1 OR payin_id = $1 OR (source IN ('PROVIDER', 'OPERATOR') AND case_ref = $1)
     ) found ORDER BY created_at DESC, id DESC LIMIT $2`,
    phones.length > 0 ? [q, limit, phones] : [q, limit],
  );
}

/** `q`: an id or part of a name (`pattern`, an escaped ILIKE pattern of it); null for every merchant. */
export async function listMerchantRows(
  db: Db,
  f: {
    q: string | null;
    pattern: string | null;
    status: string | null;
    kybStatus: string | null;
    limit: number;
    offset: number;
  },
): Promise<{ rows: MerchantRow[]; total: number }> {
  const where = `($1::text IS NULL OR id = $1 OR name ILIKE $2 OR display_name ILIKE $2)
    AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR kyb_status = $4)`;
  const params = [f.q, f.pattern, f.status, f.kybStatus];
  const rows = await db.query<MerchantRow>(
    `SELECT * FROM merchants WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6`,
    [...params, f.limit, f.offset],
  );
  const total = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM merchants WHERE ${where}`,
    params,
  );
  return { rows, total: total[0].n };
}

export type QueueCounts = {
  withdrawals_in_review: number;
  payouts_awaiting_approval: number;
  waiting_to_send: number;
  bulk_in_review: number;
  payin_holds_open: number;
  kyb_in_review: number;
};

/** What waits for operators, counted with one indexed look each; `waitingSince`: the alarm's bar. */
export async function countQueue(db: Db, waitingSince: Date): Promise<QueueCounts> {
  return (await db.query<QueueCounts>(
    `SELECT
       (SELECT count(*) FROM outbound_transfers WHERE status = 'PENDING_REVIEW')::int AS withdrawals_in_review,
       (SELECT count(*) FROM outbound_transfers WHERE status = 'PENDING')::int AS payouts_awaiting_approval,
       (SELECT count(*) FROM outbound_transfers WHERE waiting_reason IS NOT NULL AND waiting_since <= $1)::int
         AS waiting_to_send,
       (SELECT count(*) FROM bulk_batches WHERE status = 'PENDING_REVIEW')::int AS bulk_in_review,
       (SELECT count(*) FROM payin_review_holds WHERE reviewed_at IS NULL)::int AS payin_holds_open,
       (SELECT count(*) FROM kyb_reviews WHERE status = 'SUBMITTED')::int AS kyb_in_review`,
    [waitingSince],
  ))[0];
}
