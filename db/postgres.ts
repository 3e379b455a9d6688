// A real PostgreSQL server through postgres.js, with a connection pool.
import postgres from "postgres";
import { type Db, runAfterCommit } from "./mod.ts";

type Sql = postgres.Sql | postgres.TransactionSql;

function wrap(sql: Sql, root: postgres.Sql, pending: Array<() => void | Promise<void>> | null): Db {
  const db: Db = {
    driver: "postgres",
    async query<T>(text: string, params: unknown[] = []) {
      const rows = await sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true });
      return rows as unknown as T[];
    },
    async exec(text: string) {
      await sql.unsafe(text);
    },
    async tx<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      if (pending) return await fn(db);
      const callbacks: Array<() => void | Promise<void>> = [];
      const result = await root.begin((t) => fn(wrap(t, root, callbacks))) as T;
      await runAfterCommit(callbacks);
      return result;
    },
    afterCommit(fn) {
      if (pending) pending.push(fn);
      else void runAfterCommit([fn]);
    },
    async close() {
      if (!pending) await root.end({ timeout: 5 });
    },
  };
  return db;
}

export function openPostgres(url: string, max: number, schema?: string): Promise<Db> {
  const sql = postgres(url, {
    max,
    onnotice: () => {},
    connection: schema ? { search_path: schema } : {},
  });
  return Promise.resolve(wrap(sql, sql, null));
}
