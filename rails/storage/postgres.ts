// Objects as rows of `stored_objects` (bytea): the default, needing nothing beside the database.
import type { ObjectStorage } from "./types.ts";

/** The one database call this backend needs (the project's Db satisfies it). */
export type SqlRunner = {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
};

export function postgresStorage(db: SqlRunner): ObjectStorage {
  return {
    async put(key, bytes, contentType) {
      await db.query(
        `INSERT INTO stored_objects (key, content_type, bytes, size, created_at) VALUES ($1, $2, $3, $4, now())
         ON CONFLICT (key) DO NOTHING`,
        [key, contentType, bytes, bytes.length],
      );
    },
    async get(key) {
      const [row] = await db.query<{ content_type: string; bytes: Uint8Array }>(
        "SELECT content_type, bytes FROM stored_objects WHERE key = $1",
        [key],
      );
      return row ? { bytes: new Uint8Array(row.bytes), contentType: row.content_type } : null;
    },
  };
}
