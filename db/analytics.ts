// Aggregates of a merchant's activity over a period, each one indexed query (migration 026):
// settled pay-ins by bucket and currency (index-only on payins_settled_analytics), pay-ins created by
// status (index-only on payins_created_status). No query joins the ledger's journals and entries: over a
// big merchant's year that is millions of index probes (seconds), so fees come from the settled pay-ins.
import type { Db } from "./mod.ts";

type Scope = { merchantId: string; isSandbox: boolean; from: Date; to: Date };

export type VolumeRow = { bucket: string; currency: string; count: number; volume: string; fees: string };

/** Settled pay-ins (credited: CONFIRMED, OVERPAID, UNDERPAID) by UTC day or ISO week and currency. */
export async function settledVolume(db: Db, q: Scope & { interval: "day" | "week" }): Promise<VolumeRow[]> {
  return await db.query<VolumeRow>(
    // Grouped by a date (hashed: a few hundred groups), formatted after: grouping by the formatted text made
    // PostgreSQL sort every row (it cannot tell how few distinct texts there are).
    `SELECT to_char(b.day, 'YYYY-MM-DD') AS bucket, b.currency, b.count, b.volume::text, b.fees::text FROM (
       SELECT date_trunc($5, confirmed_at AT TIME ZONE 'UTC')::date AS day, currency, count(*)::int AS count,
              sum(amount_received) AS volume, sum(service_fee + network_fee) AS fees
         FROM payins
        WHERE merchant_id = $1 AND is_sandbox = $2 AND confirmed_at >= $3 AND confirmed_at < $4
          AND confirmed_at IS NOT NULL
        GROUP BY 1, 2
     ) AS b ORDER BY 1, 2`,
    [q.merchantId, q.isSandbox, q.from, q.to, q.interval],
  );
}

/** Pay-ins created in the period, by status. */
export async function payinsByStatus(db: Db, q: Scope): Promise<Array<{ status: string; count: number }>> {
  return await db.query(
    `SELECT status, count(*)::int AS count FROM payins
      WHERE merchant_id = $1 AND is_sandbox = $2 AND created_at >= $3 AND created_at < $4
      GROUP BY status`,
    [q.merchantId, q.isSandbox, q.from, q.to],
  );
}
