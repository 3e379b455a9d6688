// A whole gateway in this process for the benches, wired as tests/helpers.ts does but on a bench
// database (bench/lib.ts targets), an on-disk KV in a temp dir as the server uses, a discarding job
// queue, and the in-memory TRON devnet behind a client whose node requests are counted.
import { fixedRateSource } from "../rails/fx/mod.ts";
import { createApp } from "../api/app.ts";
import { type Config, parseConfig } from "../config.ts";
import type { Db } from "../db/mod.ts";
import { systemClock } from "../domain/clock.ts";
import { SecretBox } from "../domain/crypto.ts";
import type { Deps } from "../domain/deps.ts";
import { createLogger } from "../domain/log.ts";
import { createMerchant, updateMerchantSettings } from "../domain/merchants/mod.ts";
import { signCurrentAgreement } from "../domain/kyb/agreement.ts";
import { addressPoolSettled } from "../domain/payins/address_pool.ts";
import { createTronClient } from "../rails/tron/client.ts";
import { createTronResources } from "../rails/tron/resources.ts";
import { createDevnet, type Devnet } from "../rails/tron/devnet/mod.ts";

export type BenchGateway = {
  deps: Deps;
  app: ReturnType<typeof createApp>;
  devnet: Devnet;
  /** Node (devnet) HTTP requests made through `deps.tron` so far. */
  nodeRequests(): number;
  /** A KYB-approved merchant whose POST /v1/payments and default rate limits are raised out of the way. */
  merchant: { merchantId: string; liveSecret: string };
  close(): Promise<void>;
};

/** `blockMs`: the devnet's block interval; 0 (the default) mines only when the bench asks. */
export async function startBenchGateway(db: Db, options: { blockMs?: number } = {}): Promise<BenchGateway> {
  const config: Config = parseConfig({
    APP_ENV: "development",
    APP_SECRET: "bench-app-secret-0123456789-abcdefghij",
    ADMIN_TOKEN: "bench-admin-token-0123456789",
    GIT_REV: "bench",
    JOBS_ENABLED: "false",
    LOG_LEVEL: "error",
    // The well-known development mnemonic: never holds real funds.
    TRON_MNEMONIC: "test test test test test test test test test test test junk",
  });
  // On disk like the server's KV (rate-limit counters commit there); BENCH_KV=memory takes the disk out.
  const kvDir = await Deno.makeTempDir({ prefix: "gateway-bench-kv-" });
  const kv = await Deno.openKv(Deno.env.get("BENCH_KV") === "memory" ? ":memory:" : `${kvDir}/kv.sqlite3`);
  const devnet = await createDevnet({
    blockMs: options.blockMs ?? 0,
    usdtContract: config.tron.usdtContract,
  });
  devnet.start();
  let requests = 0;
  const node = {
    apiUrl: "http://devnet.internal/devnet",
    fetch: (input: RequestInfo | URL, init?: RequestInit) => {
      requests++;
      return Promise.resolve(devnet.app.fetch(new Request(input, init)));
    },
  };
  const tron = createTronClient(node);
  // Only the USDT rail is benched: fiat providers (card, mobile money) are left out of these deps.
  const base: Omit<Deps, "fiat"> = {
    db,
    kv,
    clock: systemClock,
    config,
    secrets: await SecretBox.fromAppSecret(config.appSecret!),
    // Jobs are not run by the benches (webhook deliveries only exist when a merchant has endpoints). The
    // address pool refills in the process, as in the server: part of what creation costs.
    queue: { enqueue: () => Promise.resolve() },
    log: createLogger("error", (line) => console.error(line)),
    fetch,
    tron,
    tronResources: createTronResources(node),
    rates: fixedRateSource(config.fx.fixedUsdtEur),
  };
  const deps = base as Deps;
  const app = createApp(deps, { devnet });
  const close = async () => {
    await addressPoolSettled(db);
    await devnet.stop();
    kv.close();
    await Deno.remove(kvDir, { recursive: true });
  };
  let created;
  try {
    created = await createMerchant(deps, { name: "Bench Merchant", kybStatus: "APPROVED" });
    // Live money needs the agreement signed too (KYB_REQUIRED otherwise), as for any real merchant.
    await signCurrentAgreement(deps, {
      merchantId: created.merchantId,
      signedBy: "bench",
      signedFrom: "127.0.0.1",
    });
    await updateMerchantSettings(deps, created.merchantId, {
      rateLimits: { "POST /v1/payments": 1_000_000, default: 1_000_000 },
    });
  } catch (err) {
    await close();
    throw err;
  }
  return {
    deps,
    app,
    devnet,
    nodeRequests: () => requests,
    merchant: { merchantId: created.merchantId, liveSecret: created.keys.liveSecret },
    close,
  };
}
