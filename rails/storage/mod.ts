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
import type { ObjectStorage } from "./types.ts";

export { OBJECT_KEY } from "./types.ts";
export type { ObjectStorage, StoredObject } from "./types.ts";

export function openStorage(config: StorageConfig | undefined, db: SqlRunner): ObjectStorage {
  if (!config || config.backend === "postgres") return postgresStorage(db);
  if (config.backend === "directory") return directoryStorage(config.dir);
  return s3Storage(config.s3!);
}
