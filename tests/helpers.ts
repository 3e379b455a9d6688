// Builds the whole gateway in-process for tests: a fresh database (in-memory PGlite, or a throwaway
// schema on the PostgreSQL named by DATABASE_URL), an in-memory KV, and the Hono app.
import postgres from "postgres";
import { type Config, parseConfig, readDatabaseConfig } from "../config.ts";
import { createApp } from "../api/app.ts";
import { newRouter } from "../api/router.ts";
import { onError } from "../api/errors.ts";
import { openPglite } from "../db/pglite.ts";
import { openPostgres } from "../db/postgres.ts";
import { migrate } from "../db/migrate.ts";
import type { Db } from "../db/mod.ts";
import { type Clock, systemClock } from "../domain/clock.ts";
import { SecretBox } from "../domain/crypto.ts";
import { addressPoolSettled } from "../domain/payins/address_pool.ts";
import type { Deps, JobMessage } from "../domain/deps.ts";
import { memoryLogger } from "../domain/log.ts";
import { type CreatedMerchant, createMerchant } from "../domain/merchants/mod.ts";
import { signCurrentAgreement } from "../domain/kyb/agreement.ts";
import { createTronClient } from "../rails/tron/client.ts";
import { createTronResources } from "../rails/tron/resources.ts";
import { createDevnet } from "../rails/tron/devnet/mod.ts";
import { openSimulators } from "../runtime.ts";
import { simulatedRateFeed } from "../rails/fx/mod.ts";
import { type Contract, contractFor } from "./contract.ts";

export const ADMIN_TOKEN = "test-admin-token-0123456789";

/**
 * A merchant as most tests need it: APPROVED merchants have also signed the current agreement, so live
 * money moves at once; PENDING ones have done neither (live money answers KYB_REQUIRED).
 */
export async function createTestMerchant(
  deps: Deps,
  name: string,
  kybStatus: "APPROVED" | "PENDING",
): Promise<CreatedMerchant> {
  const created = await createMerchant(deps, { name, kybStatus });
  if (kybStatus === "APPROVED") {
    await signCurrentAgreement(deps, {
      merchantId: created.merchantId,
      signedBy: "test fixture",
      signedFrom: "127.0.0.1",
    });
  }
  return created;
}

export type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;

async function openTestDb(databaseUrl: string | undefined): Promise<{ db: Db; drop: () => Promise<void> }> {
  if (!databaseUrl) {
    const db = await openPglite();
    return { db, drop: async () => {} };
  }
  const schema = `test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE SCHEMA ${schema}`);
  const db = await openPostgres(databaseUrl, 10, schema);
  return {
    db,
    drop: async () => {
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

export async function startTestGateway(
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    fetch?: typeof fetch;
    /** The devnet's own time (block timestamps, transaction expiry); default the system clock. */
    devnetNow?: () => number;
  } = {},
) {
  const config: Config = parseConfig({
    APP_ENV: "development",
    APP_SECRET: "test-app-secret-0123456789-abcdefghij",
    ADMIN_TOKEN,
    GIT_REV: "test-rev",
    JOBS_ENABLED: "false",
    // The well-known development mnemonic: never holds real funds. Production mode requires one.
    TRON_MNEMONIC: "test test test test test test test test test test test junk",
    DATABASE_URL: readDatabaseConfig().databaseUrl,
    // The specification's 24 hours, as production has it (development's default is 0): the API tests
    // check the cooldown, and a test that wants another one passes it in `env`.
    FIAT_DESTINATION_COOLDOWN_SECONDS: "86400",
    ...options.env,
  });
  const { db, drop } = await openTestDb(config.databaseUrl);
  await migrate(db);
  const kv = await Deno.openKv(":memory:");
  // Webhook deliveries carry `deliveryId`; the field is optional here so tests can read it off any message.
  const enqueued: Array<{ message: JobMessage & { deliveryId?: string }; delayMs: number }> = [];
  const { logger, lines } = memoryLogger();
  // An in-memory TRON devnet that only mines when a test asks (blockMs 0).
  const devnet = await createDevnet({
    blockMs: 0,
    usdtContract: config.tron.usdtContract,
    now: options.devnetNow,
  });
  const node = {
    apiUrl: "http://devnet.internal/devnet",
    fetch: (input: RequestInfo | URL, init?: RequestInit) =>
      Promise.resolve(devnet.app.fetch(new Request(input, init))),
  };
  const tron = createTronClient(node);
  const tronResources = createTronResources(node);
  // The simulators run on a frozen clock of their own: nothing they schedule happens until a test calls
  // `gw.simulators.flush()`, which moves that clock past the delay and delivers what became due.
  const simulatorStart = Date.now();
  let simulatorElapsed = 0;
  const sims = await openSimulators(
    { ...config, fiat: { ...config.fiat, simulatorDelayMs: 1000 } },
    config.appSecret!,
    () => simulatorStart + simulatorElapsed,
  );
  const simulators = {
    app: sims.simulators.app,
    card: sims.simulators.card,
    momo: sims.simulators.momo,
    momoPayout: sims.simulators.momoPayout,
    async flush() {
      simulatorElapsed += 1000;
      await sims.simulators.flush();
    },
  };
  // Every answer and every webhook body is checked against the served OpenAPI document (tests/contract.ts).
  const contractViolations: string[] = [];
  let contract: Contract | undefined;
  const served = async () => {
    if (!contract) {
      contract = contractFor(await (await app.request("/v1/openapi.json")).text());
    }
    return contract;
  };
  const innerFetch = options.fetch ?? fetch;
  // Webhook bodies are only collected here and checked in close(): compiling a validator blocks the event
  // loop for a moment, which must never eat into a delivery's timeout.
  const sentEvents: string[] = [];
  const checkedFetch: typeof fetch = (input, init) => {
    const body = init?.body;
    if (new Headers(init?.headers).has("service-signature") && typeof body === "string") {
      sentEvents.push(body);
    }
    return innerFetch(input, init);
  };
  // The rate source is a feed tests move: `gw.rates.set("0.95")`, `gw.rates.setAge(600)`, `gw.rates.clear()`.
  const clock = options.clock ?? systemClock;
  const rates = simulatedRateFeed(config.fx.fixedUsdtEur, () => clock.now());
  const deps: Deps = {
    db,
    kv,
    clock,
    config,
    secrets: await SecretBox.fromAppSecret(config.appSecret!),
    queue: {
      enqueue(message, opts = {}) {
        enqueued.push({ message, delayMs: opts.delayMs ?? 0 });
        return Promise.resolve();
      },
    },
    log: logger,
    fetch: checkedFetch,
    tron,
    tronResources,
    fiat: sims.fiat,
    rates,
  };
  deps.config = { ...config, fiat: { ...config.fiat, callbackSecret: sims.secret } };
  const app = createApp(deps, { devnet, simulators: sims.simulators });
  sims.bind((request) => app.fetch(request));

  async function request(
    method: string,
    path: string,
    opts: {
      key?: string;
      body?: unknown;
      headers?: Record<string, string>;
      rawBody?: string;
      /** The peer address Deno.serve would report (clientAddress); none: "unknown". */
      clientAddress?: string;
    } = {},
  ) {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers["x-api-key"] = opts.key;
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] = "application/json";
    }
    const env = opts.clientAddress ? { remoteAddr: { hostname: opts.clientAddress } } : undefined;
    const res = await app.request(path, { method, headers, body }, env);
    const text = await res.text();
    // deno-lint-ignore no-explicit-any
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const problem = (await served()).checkResponse(method, path, res.status, json);
    if (problem) throw new Error(`The answer contradicts /v1/openapi.json: ${problem}`);
    return { status: res.status, headers: res.headers, json, text };
  }

  return {
    deps,
    app,
    db,
    kv,
    devnet,
    simulators,
    rates,
    enqueued,
    logLines: lines,
    contractViolations,
    request,
    admin: (method: string, path: string, body?: unknown) =>
      request(method, path, { body, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
    createMerchant: (
      name = "Test Merchant",
      kybStatus: "APPROVED" | "PENDING" = "APPROVED",
    ): Promise<CreatedMerchant> => createTestMerchant(deps, name, kybStatus),
    async close() {
      for (const body of sentEvents) {
        const problem = (await served()).checkEvent(JSON.parse(body));
        if (problem) contractViolations.push(problem);
      }
      sims.simulators.stop();
      await devnet.stop();
      kv.close();
      await addressPoolSettled(db);
      await db.close();
      await drop();
      if (contractViolations.length > 0) {
        throw new Error(`Webhook bodies contradict /v1/openapi.json:\n${contractViolations.join("\n")}`);
      }
    },
  };
}

/** Runs a test body against a fresh gateway and always closes it. */
export function withGateway(
  fn: (gw: TestGateway) => Promise<void>,
  options?: Parameters<typeof startTestGateway>[0],
) {
  return async () => {
    const gw = await startTestGateway(options);
    try {
      await fn(gw);
    } finally {
      await gw.close();
    }
  };
}

/** A bare router with the app's context and error envelope, to test middleware on probe routes. */
export function probeRouter(gw: TestGateway) {
  const probe = newRouter();
  probe.use("*", async (c, next) => {
    c.set("deps", gw.deps);
    c.set("requestId", "req_test");
    await next();
  });
  probe.onError(onError);
  return probe;
}
