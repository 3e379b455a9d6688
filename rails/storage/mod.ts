// The storage seam for uploaded files (paylink images today; documents and exports may follow). Keys are
// chosen by the caller (content-addressed: the same bytes always get the same key, so a stored object
// never changes and may be cached forever). Three backends, chosen by STORAGE_BACKEND:
//   - `postgres` (default): a row of `stored_objects` (migration 019), nothing to set up, works on Deno Deploy;
//   - `directory`: files under STORAGE_DIR (default DATA_DIR/objects);
//   - `s3`: an S3-compatible bucket (AWS SigV4, path-style), not exercised in tests.
import type { StorageConfig } from "../../config.ts";
import { directoryStorage } from "./directory.ts";
import { postgresStorage, type SqlRunner } from "./postgres.ts";
import { s3Storage } from "./s3.ts";

export type StoredObject = { bytes: Uint8Array; contentType: string };

export interface ObjectStorage {
  /** Stores `bytes` under `key`; storing the same key again is harmless (same bytes). */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The object, or null when there is none. */
  get(key: string): Promise<StoredObject | null>;
}

/** Keys are `<64 hex>.<ext>`: nothing else reaches a backend (no path tricks in the directory one). */
export const OBJECT_KEY = /^[0-9a-f]{64}\.(png|jpg|webp)$/;

export function openStorage(config: StorageConfig | undefined, db: SqlRunner): ObjectStorage {
  if (!config || config.backend === "postgres") return postgresStorage(db);
  if (config.backend === "directory") return directoryStorage(config.dir);
  return s3Storage(config.s3!);
}
