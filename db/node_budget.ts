// SQL for the TRON node budget shared across hosts (rails/tron/node_budget.ts): leases of tokens from a
// row per node and window of the database's clock, the one clock every host meets.
import type { Db } from "./mod.ts";

export type NodeBudgetLease = {
  /** Tokens granted now (0: the window's budget is spent). */
  granted: number;
  /** Tokens leased in this window by every host so far, this lease included (may pass the cap). */
  taken: number;
  /** Processes that leased in this window. */
  hosts: number;
  /** Milliseconds left in the window by the database's clock. */
  msLeft: number;
};

/**
 * Adds `want` to the window's count in one statement (the row lock orders concurrent hosts) and grants
 * what still fitted under `cap` before it.
 */
export async function leaseNodeTokens(
  db: Db,
  lease: { node: string; holder: string; want: number; cap: number; windowMs: number },
): Promise<NodeBudgetLease> {
  const rows = await db.query<{ taken: string; hosts: number; ms_left: string }>(
    `WITH clock AS (SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms)
     INSERT INTO tron_node_budget AS b (node, window_start_ms, taken, holders)
       SELECT $1, clock.ms / $4::bigint * $4::bigint, $3::bigint, ARRAY[$2::text] FROM clock
     ON CONFLICT (node, window_start_ms) DO UPDATE
        SET taken = b.taken + EXCLUDED.taken,
            holders = CASE WHEN $2::text = ANY(b.holders) THEN b.holders ELSE b.holders || $2::text END
     RETURNING taken, cardinality(holders) AS hosts, (SELECT $4::bigint - ms % $4::bigint FROM clock) AS ms_left`,
    [lease.node, lease.holder, lease.want, lease.windowMs],
  );
  const taken = Number(rows[0].taken);
  const before = taken - lease.want;
  return {
    granted: Math.max(0, Math.min(lease.want, lease.cap - before)),
    taken,
    hosts: Number(rows[0].hosts),
    msLeft: Number(rows[0].ms_left),
  };
}

/** Forgets windows that ended more than `keepMs` ago (by the database's clock). */
export async function purgeNodeBudget(db: Db, keepMs = 60_000): Promise<number> {
  const rows = await db.query(
    `DELETE FROM tron_node_budget
      WHERE window_start_ms < floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint - $1::bigint
      RETURNING 1`,
    [keepMs],
  );
  return rows.length;
}
