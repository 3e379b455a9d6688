// Embedded Postgres (WASM). One connection: PGlite queues statements and transactions itself.
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import type { Db } from "./mod.ts";
import { runAfterCommit } from "./after_commit.ts";

type Queryable = PGlite | Transaction;

function wrap(conn: Queryable, root: PGlite, pending: Array<() => void | Promise<void>> | null): Db {
  const db: Db = {
    driver: "pglite",
    inTransaction: pending !== null,
    // PGlite plans every parameterized query with its values (an unnamed statement): `oneShot` is its way.
    async query<T>(text: string, params: unknown[] = []) {
      const res = await conn.query<T>(text, params);
      return res.rows;
    },
    async exec(text: string) {
      await conn.exec(text);
    },
    async tx<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      if (pending) return await fn(db);
      const callbacks: Array<() => void | Promise<void>> = [];
      const result = await root.transaction((t) => fn(wrap(t, root, callbacks)));
      await runAfterCommit(callbacks);
      return result;
    },
    afterCommit(fn) {
      if (pending) pending.push(fn);
      else void runAfterCommit([fn]);
    },
    async close() {
      if (!pending) await root.close();
    },
  };
  return db;
}

/**
 * The contrib extension migrations create (026: trigram search over the transaction history). PGlite
 * bundles it but only makes an extension creatable when it is handed to the constructor.
 */
const EXTENSIONS = { pg_trgm };

/** `dataDir` undefined means in memory (tests). */
export async function openPglite(dataDir?: string): Promise<Db> {
  if (dataDir) await Deno.mkdir(dataDir, { recursive: true });
  const pg = dataDir
    ? new PGlite(dataDir, { extensions: EXTENSIONS })
    : new PGlite({ extensions: EXTENSIONS });
  await pg.waitReady;
  return wrap(pg, pg, null);
}
