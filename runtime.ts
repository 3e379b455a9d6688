// Opens what the process needs from a Config: database (migrated), KV, secrets, the deps object.
// Shared by main.ts and cli.ts so both see the same database the same way.
import { openMailTransport } from "./rails/mail/mod.ts";
import { type Config, ConfigError } from "./config.ts";
import { migrate } from "./db/migrate.ts";
import { type Db } from "./db/mod.ts";
import { openDb } from "./db/open.ts";
import { systemClock } from "./domain/clock.ts";
import { SecretBox } from "./domain/crypto.ts";
import { type Deps, kvQueue } from "./domain/deps.ts";
import { randomToken } from "./domain/ids.ts";
import { createLogger, type Logger } from "./domain/log.ts";
import { createDemoMerchant, type CreatedMerchant, getMerchant } from "./domain/merchants/mod.ts";
import { AppError } from "./domain/errors.ts";
import { loadTronMnemonic } from "./domain/treasury/tron_mnemonic.ts";
import { createTronClient, type TronClientOptions } from "./rails/tron/client.ts";
import { createTronResources } from "./rails/tron/resources.ts";
import { createNodePool, type NodePool } from "./rails/tron/node_pool.ts";
import { describeGenesis, TRON_NETWORK_IDENTITY } from "./rails/tron/networks.ts";
import { leaseNodeTokens } from "./db/node_budget.ts";
import { holderOf } from "./domain/ops/leases.ts";
import { createDevnet, type Devnet } from "./rails/tron/devnet/mod.ts";
import { createSimulators } from "./rails/fiat/mod.ts";
import { openAggregator } from "./domain/providers/aggregators.ts";
import { fixedRateSource, httpRateFeed, type RateSource } from "./rails/fx/mod.ts";
import { hmacSha256Hex } from "./domain/crypto.ts";

/**
 * In development a missing APP_SECRET or ADMIN_TOKEN is generated once and kept in DATA_DIR, so secrets
 * encrypted at rest stay readable across restarts and the operator token does not change at every start.
 * Production requires both (config.ts enforces it). On Deno Deploy there is no disk: the token lives for
 * the isolate's life (APP_SECRET is required there).
 */
async function developmentSecret(config: Config, file: string, make: () => string): Promise<string> {
  if (config.onDenoDeploy) return make();
  const path = `${config.dataDir}/${file}`;
  try {
    return (await Deno.readTextFile(path)).trim();
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    const secret = make();
    try {
      await Deno.writeTextFile(path, secret, { mode: 0o600, createNew: true });
    } catch (raced) {
      // Another process (the CLI, a second server) wrote it first: use theirs.
      if (raced instanceof Deno.errors.AlreadyExists) return (await Deno.readTextFile(path)).trim();
      throw raced;
    }
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
  /** The TRON node pool (undefined with the embedded devnet); deps.tronNodes is its health. */
  tronPool?: NodePool;
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

/**
 * Whether the nodes' request budgets are leased from PostgreSQL, shared by every host on the database:
 * TRON_NODE_BUDGET_STORE=postgres, or `auto` with DATABASE_URL (another host may join it).
 */
export function sharesNodeBudget(config: Config): boolean {
  const store = config.tron.nodeBudgetStore;
  return store === "postgres" || (store === "auto" && Boolean(config.databaseUrl));
}

/** In development the TRON devnet runs in-process; the client then calls it without a socket. */
async function openTron(config: Config, log: Logger, db: Db) {
  if (!config.tron.embeddedDevnet) {
    // Even one node goes through the pool: its request budget, health and metrics apply all the same.
    const t = config.tron;
    const pool = createNodePool(t.nodes, {
      solidity: t.solidityNode,
      rps: t.nodeRps,
      burst: t.nodeBurst,
      budgetStore: sharesNodeBudget(config) ? (lease) => leaseNodeTokens(db, lease) : undefined,
      // One process among those sharing the nodes (a restarted one is a new holder: it counts once a window).
      holder: `${holderOf(config)}:${crypto.randomUUID().slice(0, 8)}`,
      maxLagBlocks: t.nodeMaxLagBlocks,
      nodeTimeoutMs: t.nodeTimeoutMs,
      onWarning: (message, fields) => log.warn(message, fields),
      // nile and mainnet: a node is used only once it serves the network's genesis block (networks.ts).
      genesisBlockId: t.network === "devnet" ? undefined : TRON_NETWORK_IDENTITY[t.network].genesisBlockId,
    });
    const node: TronClientOptions = { apiUrl: pool.apiUrl, fetch: pool.fetch };
    return {
      devnet: undefined,
      pool,
      tron: createTronClient(node),
      tronResources: createTronResources(node),
    };
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
  return { devnet, pool: undefined, tron: createTronClient(node), tronResources: createTronResources(node) };
}

/**
 * Start-up's check that the TRON nodes are on the configured network (nile or mainnet): each node is asked
 * for its genesis block, and one that serves another chain's (mainnet's when TRON_NETWORK=nile, nile's or a
 * devnet's when mainnet) is a configuration error: the server refuses to start (main.ts exits 1). Then the
 * USDT contract must exist on that chain (a TRON_USDT_CONTRACT of another network would watch nothing).
 * A node that does not answer is no reason to refuse (nodes flap): it is logged, and the pool uses it only
 * once it has answered with the right genesis block. The devnet (embedded or not) has no fixed genesis.
 */
export async function verifyTronNetwork(runtime: Runtime): Promise<void> {
  const { config, log } = runtime.deps;
  const pool = runtime.tronPool;
  const network = config.tron.network;
  if (!pool || network === "devnet") return;
  const expected = TRON_NETWORK_IDENTITY[network];
  const verdicts = await pool.verifyIdentity();
  const wrong = verdicts.filter((v) => v.identity === "wrong");
  if (wrong.length > 0) {
    throw new ConfigError(
      `Invalid configuration: TRON_NETWORK=${network} needs ${network} nodes (${
        describeGenesis(expected.genesisBlockId)
      }), but ${
        wrong.map((v) => `${v.url} serves ${describeGenesis(v.genesisBlockId ?? "")}`).join("; ")
      }: check TRON_API_URL${config.tron.solidityNode ? " and TRON_SOLIDITY_URL" : ""}`,
    );
  }
  const unchecked = verdicts.filter((v) => v.identity === "unchecked").map((v) => v.url);
  if (unchecked.length > 0) {
    log.warn("TRON node did not answer its genesis block: not used until it shows it is on the network", {
      network,
      nodes: unchecked,
    });
  }
  if (unchecked.length === verdicts.length) return;
  const contract = config.tron.usdtContract;
  let found: Record<string, unknown> | null = null;
  try {
    const res = await pool.fetch(`${pool.apiUrl}/wallet/getcontract`, {
      method: "POST",
      body: JSON.stringify({ value: contract, visible: true }),
      signal: AbortSignal.timeout(config.tron.nodeTimeoutMs * 2),
    });
    if (res.ok) found = await res.json();
    else await res.body?.cancel();
  } catch (err) {
    log.warn("TRON USDT contract not checked: the node did not answer", { network, error: String(err) });
    return;
  }
  if (found && !found.contract_address) {
    throw new ConfigError(
      `Invalid configuration: the USDT contract ${contract} is no contract on ${network}${
        contract === expected.usdtContract ? "" : ` (${network}'s USDT is ${expected.usdtContract})`
      }: check TRON_USDT_CONTRACT`,
    );
  }
}

/** The configured rate source: the fixed development rate, or the HTTP feed (none: no rate at all). */
export function openRateSource(config: Config): RateSource {
  if (config.fx.source === "fixed") return fixedRateSource(config.fx.fixedUsdtEur);
  if (!config.fx.feedUrl) return { usdtEur: () => Promise.resolve(null) };
  return httpRateFeed({ url: config.fx.feedUrl });
}

export async function openRuntime(config: Config): Promise<Runtime> {
  if (!config.onDenoDeploy) await Deno.mkdir(config.dataDir, { recursive: true });
  const lock = await lockEmbeddedDatabase(config);
  const appSecret = config.appSecret ?? await developmentSecret(config, "app_secret", () => randomToken(32));
  const adminToken = config.adminToken ??
    await developmentSecret(config, "admin_token", () => `adm_${randomToken(24)}`);
  const db: Db = await openDb(config);
  await migrate(db);
  const kv = config.kvPath ? await Deno.openKv(config.kvPath) : await Deno.openKv();
  const secrets = await SecretBox.fromAppSecret(appSecret);
  const mnemonic = await loadTronMnemonic(db, secrets, config.tron.mnemonic);
  const log = createLogger(config.logLevel);
  const { devnet, pool, tron, tronResources } = await openTron(config, log, db);
  const sims = await openSimulators(config, appSecret);
  const deps: Deps = {
    db,
    kv,
    clock: systemClock,
    config: {
      ...config,
      appSecret,
      adminToken,
      tron: { ...config.tron, mnemonic },
      fiat: { ...config.fiat, callbackSecret: sims.secret },
    },
    secrets,
    queue: kvQueue(kv),
    log,
    fetch: globalThis.fetch,
    tron,
    tronResources,
    tronNodes: pool,
    // FIAT_PROVIDER=cinetpay|paydunya: live money goes through that aggregator; sandbox stays simulated.
    fiat: {
      sandbox: sims.fiat.sandbox,
      live: openAggregator(config, db, { fetch: globalThis.fetch }) ?? sims.fiat.live,
    },
    rates: openRateSource(config),
    mail: openMailTransport(config),
  };
  return {
    deps,
    devnet,
    tronPool: pool,
    simulators: sims.simulators,
    bindApp: (fn) => sims.bind(fn),
    async close() {
      sims.simulators.stop();
      await devnet?.stop();
      await pool?.close();
      kv.close();
      await db.close();
      lock?.close();
    },
  };
}

/**
 * Development only: the demo merchant of this data directory, created on its first start and kept in
 * `$DATA_DIR/demo_merchant.json` (plaintext keys, like the development app secret beside it), so every
 * start can print the same keys. On Deno Deploy (no disk) it is created and shown once.
 */
export async function developmentDemoMerchant(
  runtime: Runtime,
): Promise<{ merchant: CreatedMerchant; created: boolean; path?: string }> {
  const config = runtime.deps.config;
  if (config.onDenoDeploy) return { merchant: await createDemoMerchant(runtime.deps), created: true };
  const path = `${config.dataDir}/demo_merchant.json`;
  let stale = false;
  try {
    const kept: CreatedMerchant = JSON.parse(await Deno.readTextFile(path));
    // The file outlived its database (DATABASE_URL changed, database reset): make a new one.
    if (await demoMerchantExists(runtime.deps, kept.merchantId)) {
      return { merchant: kept, created: false, path };
    }
    stale = true;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const merchant = await createDemoMerchant(runtime.deps);
  try {
    await Deno.writeTextFile(path, JSON.stringify(merchant), { mode: 0o600, createNew: !stale });
  } catch (raced) {
    // A second process created its own first: show that one (ours stays, unused and harmless).
    if (raced instanceof Deno.errors.AlreadyExists) {
      return { merchant: JSON.parse(await Deno.readTextFile(path)), created: false, path };
    }
    throw raced;
  }
  return { merchant, created: true, path };
}

async function demoMerchantExists(deps: Deps, merchantId: string): Promise<boolean> {
  try {
    await getMerchant(deps, merchantId);
    return true;
  } catch (err) {
    if (err instanceof AppError && err.code === "MERCHANT_NOT_FOUND") return false;
    throw err;
  }
}
