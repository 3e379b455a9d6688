// SQL behind the operator page's deeper reads: an item's journals and entries, its webhook deliveries,
// its signed chain transactions with the scanner's head, and a merchant's webhook delivery health.
import type { Db } from "./mod.ts";

export type JournalEntryRow = {
  journal_id: string;
  reference: string;
  kind: string;
  created_at: Date;
  account_id: string;
  account_kind: string;
  account_merchant_id: string | null;
  amount: string;
  currency: string;
};

/** The entries of the journals with these exact references (each reference is unique and indexed). */
export async function entriesOfJournals(db: Db, references: string[]): Promise<JournalEntryRow[]> {
  return await db.query<JournalEntryRow>(
    `SELECT j.id AS journal_id, j.reference, j.kind, j.created_at, e.account_id, a.kind AS account_kind,
            a.merchant_id AS account_merchant_id, e.amount::text AS amount, e.currency
       FROM journals j JOIN entries e ON e.journal_id = j.id JOIN accounts a ON a.id = e.account_id
      WHERE j.reference = ANY($1::text[])
      ORDER BY j.created_at, j.id, e.id`,
    [references],
  );
}

export type ItemDeliveryRow = {
  id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  url: string;
  status: string;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
};

/** Deliveries of the events whose data names this item (`id` or `transactionId`), newest first. */
export async function deliveriesOfItem(
  db: Db,
  merchantId: string,
  isSandbox: boolean,
  itemId: string,
  limit: number,
): Promise<ItemDeliveryRow[]> {
  return await db.query<ItemDeliveryRow>(
    `SELECT d.id, d.event_id, d.event_type, d.endpoint_id, w.url, d.status, d.attempt_count,
            d.last_status_code, d.last_error, d.created_at
       FROM events e JOIN webhook_deliveries d ON d.event_id = e.id
       JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE e.merchant_id = $1 AND e.is_sandbox = $2
        AND (e.data->>'id' = $3 OR e.data->>'transactionId' = $3)
      ORDER BY d.created_at DESC, d.id DESC LIMIT $4`,
    [merchantId, isSandbox, itemId, limit],
  );
}

export type ChainTxRow = {
  tx_id: string;
  block_number: string | null;
  result: string | null;
  superseded: boolean;
  broadcast_count: number;
  head: string | null;
};

/** Every signed transaction of an outbound item (superseded ones too), with the scanner's head block. */
export async function chainTxsOfItem(db: Db, outboundId: string): Promise<ChainTxRow[]> {
  return await db.query<ChainTxRow>(
    `SELECT o.tx_id, o.block_number::text AS block_number, o.result, o.superseded, o.broadcast_count,
            (SELECT max(head_seen) FROM chain_cursor)::text AS head
       FROM chain_outgoing o WHERE o.outbound_id = $1 ORDER BY o.created_at`,
    [outboundId],
  );
}

export type WebhookHealthRow = {
  endpoint_id: string;
  url: string;
  is_sandbox: boolean;
  status: string;
  consecutive_failures: number;
  succeeded: number;
  failed: number;
  pending: number;
  oldest_pending: Date | null;
};

/** Per endpoint: deliveries since `since` that succeeded or failed, and the whole pending backlog. */
export async function webhookHealthRows(
  db: Db,
  merchantId: string,
  since: Date,
): Promise<WebhookHealthRow[]> {
  return await db.query<WebhookHealthRow>(
    `SELECT w.id AS endpoint_id, w.url, w.is_sandbox, w.status, w.consecutive_failures,
            count(*) FILTER (WHERE d.status = 'SUCCEEDED' AND d.created_at >= $2)::int AS succeeded,
            count(*) FILTER (WHERE d.status = 'FAILED' AND d.created_at >= $2)::int AS failed,
            count(*) FILTER (WHERE d.status = 'PENDING')::int AS pending,
            min(d.created_at) FILTER (WHERE d.status = 'PENDING') AS oldest_pending
       FROM webhook_endpoints w
       LEFT JOIN webhook_deliveries d ON d.endpoint_id = w.id AND (d.status = 'PENDING' OR d.created_at >= $2)
      WHERE w.merchant_id = $1
      GROUP BY w.id ORDER BY w.created_at`,
    [merchantId, since],
  );
}

/** A merchant's status under its row lock, so two operators' status changes take turns. */
export async function lockMerchantStatus(db: Db, id: string): Promise<{ status: string } | undefined> {
  return (await db.query<{ status: string }>(`SELECT status FROM merchants WHERE id = $1 FOR UPDATE`, [id]))[
    0
  ];
}
