// Applies db/migrations/NNN_name.sql in order, once each, under a transaction-scoped advisory lock so
// two processes starting together cannot apply the same file twice.
import type { Db } from "./mod.ts";

const MIGRATIONS_DIR = new URL("./migrations/", import.meta.url);
// Any constant works; it only has to be the same in every process of this gateway.
const MIGRATION_LOCK_ID = 727_001;

export type Migration = { version: number; name: string; sql: string };

export async function loadMigrations(): Promise<Migration[]> {
  const migrations: Migration[] = [];
  for await (const entry of Deno.readDir(MIGRATIONS_DIR)) {
    const match = entry.isFile ? /^(\d{3})_([a-z0-9_]+)\.sql$/.exec(entry.name) : null;
    if (!match) continue;
    const sql = await Deno.readTextFile(new URL(entry.name, MIGRATIONS_DIR));
    migrations.push({ version: Number(match[1]), name: match[2], sql });
  }
  return migrations.sort((a, b) => a.version - b.version);
}

/** Returns the versions applied by this call (empty when the schema was already current). */
export async function migrate(db: Db): Promise<number[]> {
  const migrations = await loadMigrations();
  return await db.tx(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_ID]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set(
      (await tx.query<{ version: number }>("SELECT version FROM schema_migrations")).map((r) => r.version),
    );
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [m.version, m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}
