// Opens the database the configuration names: PostgreSQL through postgres.js when DATABASE_URL is set,
// embedded PGlite under DATA_DIR otherwise. Apart from db/mod.ts so the drivers can import its types.
import type { Config } from "../config.ts";
import type { Db } from "./mod.ts";
import { openPglite } from "./pglite.ts";
import { openPostgres } from "./postgres.ts";

export type DbOptions = { schema?: string };

export async function openDb(
  config: Pick<Config, "databaseUrl" | "dataDir" | "databasePoolSize">,
  options: DbOptions = {},
): Promise<Db> {
  if (config.databaseUrl) {
    return await openPostgres(config.databaseUrl, config.databasePoolSize, options.schema);
  }
  return await openPglite(`${config.dataDir}/pg`);
}
