// Migrations: applied once, in order, recorded; safe when several processes start together.
import postgres from "postgres";
import { readDatabaseConfig } from "../../config.ts";
import { loadMigrations, migrate } from "../../db/migrate.ts";
import { openPglite } from "../../db/pglite.ts";
import { openPostgres } from "../../db/postgres.ts";
import { assert, assertEquals } from "../assert.ts";

Deno.test("migrations apply in order once, and a second run applies nothing", async () => {
  const db = await openPglite();
  try {
    const all = (await loadMigrations()).map((m) => m.version);
    assertEquals(all, [...all].sort((a, b) => a - b));
    assertEquals(await migrate(db), all);
    assertEquals(await migrate(db), []);
    const recorded = await db.query<{ version: number }>(
      "SELECT version FROM schema_migrations ORDER BY version",
    );
    assertEquals(recorded.map((r) => r.version), all);
  } finally {
    await db.close();
  }
});

const databaseUrl = readDatabaseConfig().databaseUrl;

Deno.test({
  name: "five processes migrating one PostgreSQL at once apply each migration exactly once",
  ignore: !databaseUrl,
  fn: async () => {
    const schema = `migr_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const admin = postgres(databaseUrl!, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE SCHEMA ${schema}`);
    const dbs = await Promise.all(Array.from({ length: 5 }, () => openPostgres(databaseUrl!, 2, schema)));
    try {
      const results = await Promise.all(dbs.map((db) => migrate(db)));
      const applied = results.flat();
      const all = (await loadMigrations()).map((m) => m.version);
      assertEquals(applied.sort((a, b) => a - b), all, "each version applied by exactly one process");
      assert(results.filter((r) => r.length > 0).length === 1, "one process did all the work");
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  },
});
