// Opens what the process needs from a Config: database (migrated), KV, secrets, the deps object.
// Shared by main.ts and cli.ts so both see the same database the same way.
import { type Config, ConfigError } from "./config.ts";
import { migrate } from "./db/migrate.ts";
import { type Db, openDb } from "./db/mod.ts";
import { systemClock } from "./domain/clock.ts";
import { SecretBox } from "./domain/crypto.ts";
import { type Deps, kvQueue } from "./domain/deps.ts";
import { randomToken } from "./domain/ids.ts";
import { createLogger } from "./domain/log.ts";

/**
 * In development a missing APP_SECRET is generated once and kept in DATA_DIR, so secrets encrypted at
 * rest stay readable across restarts. Production requires APP_SECRET (config.ts enforces it).
 */
async function developmentAppSecret(config: Config): Promise<string> {
  const path = `${config.dataDir}/app_secret`;
  try {
    return (await Deno.readTextFile(path)).trim();
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    const secret = randomToken(32);
    await Deno.writeTextFile(path, secret, { mode: 0o600, createNew: true });
    return secret;
  }
}

/**
 * PGlite is one process's database: a second process opening the same directory would corrupt it. The
 * server and the CLI take an exclusive lock on a file beside it; whoever comes second is told so.
 */
async function lockEmbeddedDatabase(config: Config): Promise<Deno.FsFile | undefined> {
  if (config.databaseUrl) return undefined;
  const file = await Deno.open(`${config.dataDir}/pglite.lock`, { create: true, write: true });
  const locked = await Promise.race([
    file.lock(true).then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), 1500)),
  ]);
  if (!locked) {
    throw new ConfigError(
      `The embedded database in ${config.dataDir} is in use by another gateway process; stop it, or use the admin API (POST /admin/api/merchants) while it runs`,
    );
  }
  return file;
}

export type Runtime = { deps: Deps; close(): Promise<void> };

export async function openRuntime(config: Config): Promise<Runtime> {
  if (!config.onDenoDeploy) await Deno.mkdir(config.dataDir, { recursive: true });
  const lock = await lockEmbeddedDatabase(config);
  const appSecret = config.appSecret ?? await developmentAppSecret(config);
  const db: Db = await openDb(config);
  await migrate(db);
  const kv = config.kvPath ? await Deno.openKv(config.kvPath) : await Deno.openKv();
  const deps: Deps = {
    db,
    kv,
    clock: systemClock,
    config: { ...config, appSecret },
    secrets: await SecretBox.fromAppSecret(appSecret),
    queue: kvQueue(kv),
    log: createLogger(config.logLevel),
    fetch: globalThis.fetch,
  };
  return {
    deps,
    async close() {
      kv.close();
      await db.close();
      lock?.close();
    },
  };
}
