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
import { loadTronMnemonic } from "./domain/tron_mnemonic.ts";
import { createTronClient, type TronClientOptions } from "./rails/tron/client.ts";
import { createTronResources } from "./rails/tron/resources.ts";
import { createDevnet, type Devnet } from "./rails/tron/devnet/mod.ts";
import { createSimulators } from "./rails/fiat/mod.ts";
import { hmacSha256Hex } from "./domain/crypto.ts";

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

export type Simulators = ReturnType<typeof createSimulators>;

export type Runtime = {
  deps: Deps;
  devnet?: Devnet;
  simulators: Simulators;
  /** Lets the simulators call the gateway back in-process, once the app exists. */
  bindApp(fetch: (request: Request) => Response | Promise<Response>): void;
  close(): Promise<void>;
};

/**
 * The card and mobile money simulators. They answer sandbox pay-ins always, and live ones too outside
 * production (where a real provider must be configured instead). Their callbacks reach the gateway's own
 * app without a socket, so they work whatever port or public URL the process has.
 */
export async function openSimulators(config: Config, appSecret: string, now?: () => number) {
  const secret = config.fiat.callbackSecret ?? await hmacSha256Hex(appSecret, "provider-callback-secret");
  let gateway: ((request: Request) => Response | Promise<Response>) | undefined;
  const simulators = createSimulators({
    publicBase: config.publicUrl,
    secret,
    delayMs: config.fiat.simulatorDelayMs,
    now,
    deliver: async (url, body, headers) => {
      const request = new Request(url, { method: "POST", body, headers });
      const response = gateway ? await gateway(request) : await fetch(request);
      await response.body?.cancel();
      return response.status;
    },
  });
  const fiat = { sandbox: simulators, live: config.appEnv === "production" ? undefined : simulators };
  return { simulators, fiat, secret, bind: (fn: typeof gateway) => (gateway = fn) };
}

/** In development the TRON devnet runs in-process; the client then calls it without a socket. */
async function openTron(config: Config) {
  if (!config.tron.embeddedDevnet) {
    const node: TronClientOptions = { apiUrl: config.tron.apiUrl, apiKey: config.tron.apiKey };
    return { devnet: undefined, tron: createTronClient(node), tronResources: createTronResources(node) };
  }
  const devnet = await createDevnet({
    blockMs: config.tron.devnetBlockMs,
    dataDir: config.onDenoDeploy ? undefined : config.dataDir,
    usdtContract: config.tron.usdtContract,
  });
  const node: TronClientOptions = {
    apiUrl: "http://devnet.internal/devnet",
    fetch: (input, init) => Promise.resolve(devnet.app.fetch(new Request(input, init))),
  };
  return { devnet, tron: createTronClient(node), tronResources: createTronResources(node) };
}

export async function openRuntime(config: Config): Promise<Runtime> {
  if (!config.onDenoDeploy) await Deno.mkdir(config.dataDir, { recursive: true });
  const lock = await lockEmbeddedDatabase(config);
  const appSecret = config.appSecret ?? await developmentAppSecret(config);
  const db: Db = await openDb(config);
  await migrate(db);
  const kv = config.kvPath ? await Deno.openKv(config.kvPath) : await Deno.openKv();
  const secrets = await SecretBox.fromAppSecret(appSecret);
  const mnemonic = await loadTronMnemonic(db, secrets, config.tron.mnemonic);
  const { devnet, tron, tronResources } = await openTron(config);
  const sims = await openSimulators(config, appSecret);
  const deps: Deps = {
    db,
    kv,
    clock: systemClock,
    config: {
      ...config,
      appSecret,
      tron: { ...config.tron, mnemonic },
      fiat: { ...config.fiat, callbackSecret: sims.secret },
    },
    secrets,
    queue: kvQueue(kv),
    log: createLogger(config.logLevel),
    fetch: globalThis.fetch,
    tron,
    tronResources,
    fiat: sims.fiat,
  };
  return {
    deps,
    devnet,
    simulators: sims.simulators,
    bindApp: (fn) => sims.bind(fn),
    async close() {
      sims.simulators.stop();
      await devnet?.stop();
      kv.close();
      await db.close();
      lock?.close();
    },
  };
}
