// Aggregates of a merchant's pay-ins over a period, read from the daily roll-ups (migration 038): the
// whole UTC days inside the period from payin_daily plus the deltas not folded yet, the partial days at
// its two ends from payins themselves (payins_settled_analytics, payins_created_status: migration 029).
// Each answer is one statement, so one snapshot: exact whether or not the fold has run. A year reads at
// most a row per day, currency (and status), plus the deltas of the last minute.
import type { Db } from "./mod.ts";

type Scope = { merchantId: string; isSandbox: boolean; from: Date; to: Date };

export type VolumeRow = { bucket: string; currency: string; count: number; volume: string; fees: string };

const DAY_MS = 86_400_000;

/**
 * The period [from, to) as whole UTC days [firstDay, endDay) and the instants where they start and end;
 * the rest ([from, fullStart) and [fullEnd, to)) is read from the pay-ins. No whole day: all of it is.
 */
export function splitPeriod(from: Date, to: Date) {
  const start = Math.ceil(from.getTime() / DAY_MS) * DAY_MS;
  const end = Math.floor(to.getTime() / DAY_MS) * DAY_MS;
  const [fullStart, fullEnd] = start < end ? [new Date(start), new Date(end)] : [to, to];
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return { fullStart, fullEnd, firstDay: day(fullStart), endDay: day(fullEnd) };
}

function params(q: Scope) {
  const p = splitPeriod(q.from, q.to);
  return [q.merchantId, q.isSandbox, q.from, q.to, p.fullStart, p.fullEnd, p.firstDay, p.endDay];
}

/** $1 merchant, $2 sandbox, $3 from, $4 to, $5 fullStart, $6 fullEnd, $7 firstDay, $8 endDay. */
const ROLLED = (kind: "SETTLED" | "CREATED", columns: string) =>
  `SELECT ${columns} FROM payin_daily
    WHERE merchant_id = $1 AND is_sandbox = $2 AND kind = '${kind}' AND day >= $7::date AND day < $8::date
   UNION ALL
   SELECT ${columns} FROM payin_daily_deltas
    WHERE merchant_id = $1 AND is_sandbox = $2 AND kind = '${kind}' AND day >= $7::date AND day < $8::date`;

/** Settled pay-ins (those with `confirmed_at`: credited) by UTC day or ISO week and currency. */
export async function settledVolume(db: Db, q: Scope & { interval: "day" | "week" }): Promise<VolumeRow[]> {
  const edge = (lo: string, hi: string) =>
    `SELECT (confirmed_at AT TIME ZONE 'UTC')::date, currency, 1, amount_received, service_fee + network_fee
       FROM payins WHERE merchant_id = $1 AND is_sandbox = $2 AND confirmed_at >= ${lo} AND confirmed_at < ${hi}`;
  return await db.query<VolumeRow>(
    `SELECT to_char(b.day, 'YYYY-MM-DD') AS bucket, b.currency, b.count, b.volume::text, b.fees::text FROM (
       SELECT date_trunc($9, r.day::timestamp)::date AS day, r.currency, sum(r.count)::int AS count,
              sum(r.volume) AS volume, sum(r.fees) AS fees
         FROM (${ROLLED("SETTLED", "day, currency, count, volume, fees")}
               UNION ALL ${edge("$3", "$5")} UNION ALL ${
      edge("$6", "$4")
    }) AS r (day, currency, count, volume, fees)
        GROUP BY 1, 2
       HAVING sum(r.count) <> 0
     ) AS b ORDER BY 1, 2`,
    [...params(q), q.interval],
  );
}

/** Pay-ins created in the period, by status. */
export async function payinsByStatus(db: Db, q: Scope): Promise<Array<{ status: string; count: number }>> {
  const edge = (lo: string, hi: string) =>
    `SELECT status, 1 FROM payins
      WHERE merchant_id = $1 AND is_sandbox = $2 AND created_at >= ${lo} AND created_at < ${hi}`;
  return await db.query(
    `SELECT r.status, sum(r.count)::int AS count
       FROM (${ROLLED("CREATED", "status, count")}
             UNION ALL ${edge("$3", "$5")} UNION ALL ${edge("$6", "$4")}) AS r (status, count)
      GROUP BY r.status HAVING sum(r.count) <> 0`,
    params(q),
  );
}

/**
 * Moves up to `limit` deltas (oldest first) into payin_daily, in one statement: deleted and added
 * together, so no read ever counts a delta twice or not at all. Runs beside another fold safely (SKIP
 * LOCKED: each takes its own deltas; the upserts in key order). Returns how many deltas it moved.
 */
export async function foldPayinDaily(db: Db, limit: number): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `WITH picked AS (
       SELECT id FROM payin_daily_deltas ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
     ), moved AS (
       DELETE FROM payin_daily_deltas d USING picked WHERE d.id = picked.id
       RETURNING d.merchant_id, d.is_sandbox, d.kind, d.day, d.currency, d.status, d.count, d.volume, d.fees
     ), added AS (
       INSERT INTO payin_daily (merchant_id, is_sandbox, kind, day, currency, status, count, volume, fees)
       SELECT merchant_id, is_sandbox, kind, day, currency, status, sum(count), sum(volume), sum(fees)
         FROM moved GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
       ON CONFLICT (merchant_id, is_sandbox, kind, day, currency, status) DO UPDATE
         SET count = payin_daily.count + EXCLUDED.count, volume = payin_daily.volume + EXCLUDED.volume,
             fees = payin_daily.fees + EXCLUDED.fees
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM moved)::int AS n, (SELECT count(*) FROM added)::int AS upserted`,
    [limit],
  );
  return rows[0].n;
}
