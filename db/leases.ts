// Leader leases in PostgreSQL: one row per name, taken when free or expired, renewed by its holder.
import type { Db } from "./mod.ts";

/**
 * Takes or renews the lease `name` for `holder` until `ttlMs` from the database's clock (one clock for
 * every host); answers the term held, or null when another holder's lease is still running.
 */
export async function takeLease(db: Db, name: string, holder: string, ttlMs: number): Promise<number | null> {
  const rows = await db.query<{ term: string }>(
    `INSERT INTO leader_leases AS l (name, holder, term, expires_at)
     VALUES ($1, $2, 1, now() + $3 * interval '1 millisecond')
     ON CONFLICT (name) DO UPDATE
        SET holder = EXCLUDED.holder,
            term = l.term + CASE WHEN l.holder = EXCLUDED.holder THEN 0 ELSE 1 END,
            expires_at = EXCLUDED.expires_at
      WHERE l.holder = EXCLUDED.holder OR l.expires_at < now()
     RETURNING term`,
    [name, holder, ttlMs],
  );
  return rows.length ? Number(rows[0].term) : null;
}

/** Gives the lease up at once (a clean stop), so another host need not wait for it to expire. */
export async function releaseLease(db: Db, name: string, holder: string): Promise<void> {
  await db.query("DELETE FROM leader_leases WHERE name = $1 AND holder = $2", [name, holder]);
}
