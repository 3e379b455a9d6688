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
