// SQL for plan-limit counters (migration 045).
import type { Db } from "./mod.ts";

/** Adds `by` to the counter and answers the total after; the row stays locked until the transaction ends. */
export async function addUsage(
  db: Db,
  key: { merchantId: string; isSandbox: boolean; metric: string; period: string },
  by: string,
): Promise<string> {
  const rows = await db.query<{ used: string }>(
    `INSERT INTO usage_counters (merchant_id, is_sandbox, metric, period, used) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (merchant_id, is_sandbox, metric, period) DO UPDATE SET used = usage_counters.used + EXCLUDED.used
     RETURNING used::text`,
    [key.merchantId, key.isSandbox, key.metric, key.period, by],
  );
  return rows[0].used;
}

export async function readUsage(
  db: Db,
  key: { merchantId: string; isSandbox: boolean; metric: string; period: string },
): Promise<string> {
  const rows = await db.query<{ used: string }>(
    `SELECT used::text FROM usage_counters
      WHERE merchant_id = $1 AND is_sandbox = $2 AND metric = $3 AND period = $4`,
    [key.merchantId, key.isSandbox, key.metric, key.period],
  );
  return rows[0]?.used ?? "0";
}

export async function findPlanLimits(
  db: Db,
  merchantId: string,
): Promise<Record<string, string> | undefined> {
  const rows = await db.query<{ plan_limits: Record<string, string> }>(
    "SELECT plan_limits FROM merchants WHERE id = $1",
    [merchantId],
  );
  return rows[0]?.plan_limits;
}

export async function setPlanLimits(db: Db, merchantId: string, limits: Record<string, string>) {
  const rows = await db.query<{ plan_limits: Record<string, string> }>(
    "UPDATE merchants SET plan_limits = $2::text::jsonb, updated_at = now() WHERE id = $1 RETURNING plan_limits",
    [merchantId, JSON.stringify(limits)],
  );
  return rows[0]?.plan_limits;
}

/** The sum of the merchant's wallets in one currency and mode (XOF has one wallet per rail). */
export async function walletsBalance(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
  currency: string,
): Promise<string> {
  const rows = await db.query<{ balance: string }>(
    `SELECT COALESCE(sum(balance), 0)::text AS balance FROM accounts
      WHERE merchant_id = $1 AND is_sandbox = $2 AND kind = 'WALLET' AND currency = $3`,
    [scope.merchantId, scope.isSandbox, currency],
  );
  return rows[0]?.balance ?? "0";
}

export type CounterTake = { metric: string; period: string; limit: string };

/** What takeCounters saw: whether it raised them, how many rows it found, the balance, each counter. */
export type TakeResult = {
  taken: boolean;
  found: number;
  balance: string;
  counters: Array<{ metric: string; used: string; limit: string }>;
};

/**
 * Raises every counter by `by` if each stays within its limit and, when a balance cap is given, the
 * merchant's wallets of that currency plus `by` stay within it; otherwise raises none. One statement: the
 * counter rows are locked (in one order) only while it runs, so under autocommit concurrent callers queue
 * for microseconds, not for round trips. Rows must exist ("missing": create them with ensureCounters and
 * call again).
 */
export async function takeCounters(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
  by: string,
  counters: CounterTake[],
  balanceCap?: { currency: string; cap: string },
): Promise<TakeResult> {
  const rows = await db.query<
    { found: number; fits: boolean | null; balance: string; updated: number; cur: string | null }
  >(
    `WITH want AS MATERIALIZED (
       SELECT * FROM unnest($3::text[], $4::text[], $5::numeric[]) WITH ORDINALITY AS w(metric, period, lim, n)
     ), cur AS MATERIALIZED (
       SELECT u.metric, u.period, u.used, w.lim, w.n FROM usage_counters u
         JOIN want w ON w.metric = u.metric AND w.period = u.period
        WHERE u.merchant_id = $1 AND u.is_sandbox = $2
        ORDER BY u.metric, u.period
          FOR UPDATE OF u
     ), bal AS MATERIALIZED (
       SELECT COALESCE(sum(balance), 0) AS balance FROM accounts
        WHERE $7::text IS NOT NULL AND merchant_id = $1 AND is_sandbox = $2 AND kind = 'WALLET' AND currency = $7
     ), verdict AS MATERIALIZED (
       SELECT count(*)::int AS found, bool_and(used + $6::numeric <= lim) AS fits FROM cur
     ), upd AS (
       UPDATE usage_counters u SET used = u.used + $6::numeric
         FROM want w, verdict v
        WHERE v.found = cardinality($3::text[]) AND v.fits
          AND ($8::numeric IS NULL OR (SELECT balance FROM bal) + $6::numeric <= $8::numeric)
          AND u.merchant_id = $1 AND u.is_sandbox = $2 AND u.metric = w.metric AND u.period = w.period
       RETURNING u.metric
     )
     SELECT v.found, v.fits, (SELECT balance::text FROM bal) AS balance, (SELECT count(*)::int FROM upd) AS updated,
            (SELECT json_agg(json_build_object('metric', metric, 'used', used::text, 'limit', lim::text) ORDER BY n)::text
               FROM cur) AS cur
       FROM verdict v`,
    [
      scope.merchantId,
      scope.isSandbox,
      counters.map((c) => c.metric),
      counters.map((c) => c.period),
      counters.map((c) => c.limit),
      by,
      balanceCap?.currency ?? null,
      balanceCap?.cap ?? null,
    ],
  );
  const r = rows[0];
  return {
    taken: r.updated === counters.length,
    found: r.found,
    balance: r.balance ?? "0",
    counters: JSON.parse(r.cur ?? "[]"),
  };
}

/** Creates the counter rows at 0 where they do not exist yet (the first request of a period). */
export async function ensureCounters(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
  counters: Array<{ metric: string; period: string }>,
): Promise<void> {
  await db.query(
    `INSERT INTO usage_counters (merchant_id, is_sandbox, metric, period, used)
     SELECT $1, $2, metric, period, 0 FROM unnest($3::text[], $4::text[]) AS w(metric, period)
     ON CONFLICT (merchant_id, is_sandbox, metric, period) DO NOTHING`,
    [scope.merchantId, scope.isSandbox, counters.map((c) => c.metric), counters.map((c) => c.period)],
  );
}
