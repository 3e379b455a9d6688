// The numbers /metrics reads from the database at scrape time: one round trip, each an indexed count.
import type { Db } from "./mod.ts";

export type DatabaseGauges = {
  deliveriesPending: number;
  deliveriesDue: number;
  deliveriesFailing: number;
  deliveriesFailed: number;
  payinsExpiryDue: number;
  scannerHead: number | null;
  scannerLastBlock: number | null;
  /** Accepted live payouts and withdrawals waiting to be sent, and the oldest one's wait in seconds. */
  outboundWaiting: number;
  outboundWaitingOldestSeconds: number;
};

export async function readDatabaseGauges(db: Db, now: Date): Promise<DatabaseGauges> {
  const [row] = await db.query<Record<string, string | number | null>>(
    `SELECT
       (SELECT count(*) FROM webhook_deliveries WHERE status = 'PENDING')::int AS deliveries_pending,
       (SELECT count(*) FROM webhook_deliveries WHERE status = 'PENDING' AND next_attempt_at <= $1)::int
         AS deliveries_due,
       (SELECT count(*) FROM webhook_deliveries WHERE status = 'PENDING' AND attempt_count > 0)::int
         AS deliveries_failing,
       (SELECT count(*) FROM webhook_deliveries WHERE status = 'FAILED')::int AS deliveries_failed,
       (SELECT count(*) FROM payins WHERE status = 'AWAITING_PAYMENT' AND expires_at <= $1)::int
         AS payins_expiry_due,
       (SELECT max(head_seen) FROM chain_cursor)::bigint AS scanner_head,
       (SELECT max(number) FROM chain_blocks)::bigint AS scanner_last,
       (SELECT count(*) FROM outbound_transfers WHERE waiting_reason IS NOT NULL AND NOT is_sandbox
           AND status IN ('PROCESSING', 'APPROVED', 'BROADCAST'))::int AS outbound_waiting,
       (SELECT COALESCE(floor(extract(epoch FROM $1::timestamptz - min(waiting_since))), 0)
          FROM outbound_transfers WHERE waiting_reason IS NOT NULL AND NOT is_sandbox
           AND status IN ('PROCESSING', 'APPROVED', 'BROADCAST'))::bigint AS outbound_waiting_oldest`,
    [now],
  );
  const num = (v: string | number | null) => (v === null ? null : Number(v));
  return {
    deliveriesPending: Number(row.deliveries_pending),
    deliveriesDue: Number(row.deliveries_due),
    deliveriesFailing: Number(row.deliveries_failing),
    deliveriesFailed: Number(row.deliveries_failed),
    payinsExpiryDue: Number(row.payins_expiry_due),
    scannerHead: num(row.scanner_head),
    scannerLastBlock: num(row.scanner_last),
    outboundWaiting: Number(row.outbound_waiting),
    outboundWaitingOldestSeconds: Number(row.outbound_waiting_oldest),
  };
}
