// Pay-in creation over HTTP, as a fresh server meets a burst: POST /v1/payments (USDT, amount "10", live
// secret key of a KYB-approved merchant whose rate limits the operator lifted) by 50 concurrent clients,
// against a bare baseline: a plain Hono route that looks the same key up and INSERTs one row of similar
// width, on the same database in the same run. Each sits behind its own Deno.serve on 127.0.0.1.
//
// Cold first: the gateway starts with its address pool EMPTY, so the run includes what a fresh server
// does (requests deriving for themselves, the in-process refill running beside them).
// Then the baseline for as long, then the gateway again with the pool filled beforehand, printed beside.
// Load comes from a Worker (bench/lib.ts LoadGenerator), sent in chunks until the duration is up.
//
// `--smoke`: a few seconds per phase, to keep the bench from rotting in CI.
import { Hono } from "hono";
import { nextIndex } from "../db/deposit_addresses.ts";
import type { Db } from "../db/mod.ts";
import { hashApiKey } from "../domain/keys/api_keys.ts";
import { ACCOUNT_INDEX, addressPoolFree, fillAddressPool } from "../domain/payins/address_pool.ts";
import { type BenchGateway, startBenchGateway } from "./gateway.ts";
import {
  type BenchOptions,
  type BenchTarget,
  benchTargets,
  cpuSnapshot,
  fmt,
  formatStatuses,
  formatTable,
  LoadGenerator,
  median,
  percentile,
} from "./lib.ts";

const CONCURRENCY = 50;
const BODY = JSON.stringify({ amount: "10" });

type Phase = {
  label: string;
  seconds: number;
  created: number;
  statuses: Record<number, number>;
  perSecond: number;
  chunkRates: number[];
  p50: number;
  p99: number;
  /** CPU ms per 201: the gateway's main thread, this whole process, the PostgreSQL server (if local). */
  cpuPerCreated: { main: number; process: number; postgres?: number };
};
type Result = {
  target: string;
  cold: Phase;
  baseline: Phase;
  warm: Phase;
  fill: { addresses: number; ms: number };
  derivedDuringCold: number;
};

/** The baseline: the key looked up by its hash, then one INSERT of a payins-like row per request. */
function baselineApp(db: Db): Hono {
  const app = new Hono();
  let seq = 0;
  app.post("/v1/payments", async (c) => {
    const key = await db.query<{ merchant_id: string }>(
      "SELECT merchant_id FROM api_keys WHERE key_hash = $1",
      [await hashApiKey(c.req.header("x-api-key") ?? "")],
    );
    if (!key[0]) return c.json({ success: false }, 401);
    const body = await c.req.json<{ amount: string }>();
    const now = new Date();
    const id = `pay_${now.getTime().toString(36)}${(seq++).toString(36).padStart(8, "0")}`;
    const rows = await db.query<{ id: string; status: string; expires_at: Date }>(
      `INSERT INTO bench_payin_baseline (id, merchant_id, is_sandbox, payment_method, status, currency, chain,
         amount, amount_expected, network_fee, address, external_ref, metadata, success_url, cancel_url,
         expires_at, created_at, updated_at)
       VALUES ($1, $2, false, 'USDT_TRC20', 'AWAITING_PAYMENT', 'USDT_TRC20', 'TRON', $3::numeric,
         $3::numeric + 1.5, 1.5, $4, NULL, '{}'::jsonb, NULL, NULL, $5, $6, $6)
       RETURNING id, status, expires_at`,
      [
        id,
        key[0].merchant_id,
        body.amount,
        `T${id.padEnd(33, "x").slice(0, 33)}`,
        new Date(now.getTime() + 1_800_000),
        now,
      ],
    );
    const row = rows[0];
    return c.json({
      success: true,
      data: { transactionId: row.id, status: row.status, expiresAt: row.expires_at.toISOString() },
    }, 201);
  });
  return app;
}

async function createBaselineTable(db: Db): Promise<void> {
  await db.exec(`CREATE TABLE bench_payin_baseline (
    id text PRIMARY KEY, merchant_id text NOT NULL, is_sandbox boolean NOT NULL, payment_method text NOT NULL,
    status text NOT NULL, currency text NOT NULL, chain text, amount numeric NOT NULL,
    amount_expected numeric NOT NULL, network_fee numeric NOT NULL, amount_received numeric NOT NULL DEFAULT 0,
    address text, external_ref text, metadata jsonb NOT NULL, success_url text, cancel_url text,
    expires_at timestamptz NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`);
}

function serve(handler: (req: Request) => Response | Promise<Response>): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
}

/** Sends chunks of requests at CONCURRENCY until `seconds` have passed, or `total` requests when given. */
async function measure(
  load: LoadGenerator,
  chunk: number,
  label: string,
  url: string,
  key: string,
  limit: { seconds: number } | { total: number },
): Promise<Phase> {
  const statuses: Record<number, number> = {};
  const okLatencies: number[] = [];
  const chunkRates: number[] = [];
  let elapsedMs = 0;
  let sent = 0;
  const cpuBefore = cpuSnapshot();
  for (;;) {
    const total = "total" in limit ? Math.min(chunk, limit.total - sent) : chunk;
    if (total <= 0) break;
    const r = await load.run({
      url,
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: BODY,
      total,
      concurrency: CONCURRENCY,
    });
    sent += total;
    elapsedMs += r.elapsedMs;
    r.codes.forEach((code, i) => {
      statuses[code] = (statuses[code] ?? 0) + 1;
      if (code === 201) okLatencies.push(r.latencies[i]);
    });
    chunkRates.push(r.okPerSecond);
    if ("seconds" in limit && elapsedMs >= limit.seconds * 1000) break;
  }
  const created = statuses[201] ?? 0;
  const cpuAfter = cpuSnapshot();
  const per = (after?: number, before?: number) =>
    after === undefined || before === undefined ? undefined : (after - before) / Math.max(1, created);
  return {
    cpuPerCreated: {
      main: per(cpuAfter.mainMs, cpuBefore.mainMs)!,
      process: per(cpuAfter.processMs, cpuBefore.processMs)!,
      postgres: per(cpuAfter.postgresMs, cpuBefore.postgresMs),
    },
    label,
    seconds: elapsedMs / 1000,
    created,
    statuses,
    perSecond: created / (elapsedMs / 1000),
    chunkRates,
    p50: okLatencies.length ? percentile(okLatencies, 50) : NaN,
    p99: okLatencies.length ? percentile(okLatencies, 99) : NaN,
  };
}

async function benchTarget(target: BenchTarget, load: LoadGenerator, options: BenchOptions): Promise<Result> {
  const { db } = target;
  const smoke = options.smoke;
  const seconds = options.seconds ?? (smoke ? 3 : 60);
  const warmRequests = smoke ? 300 : 5000;
  const chunk = smoke ? 200 : 1000;
  const gw: BenchGateway = await startBenchGateway(db);
  let gatewayServer: Deno.HttpServer<Deno.NetAddr> | undefined;
  let baselineServer: Deno.HttpServer<Deno.NetAddr> | undefined;
  try {
    await createBaselineTable(db);
    gatewayServer = serve(gw.app.fetch);
    baselineServer = serve(baselineApp(db).fetch);
    const url = (s: Deno.HttpServer<Deno.NetAddr>) => `http://127.0.0.1:${s.addr.port}/v1/payments`;
    const key = gw.merchant.liveSecret;
    if (addressPoolFree(db).live !== 0 || await nextIndex(db, ACCOUNT_INDEX.live) !== 0) {
      throw new Error("the pool should start empty");
    }
    console.log(`${target.label}: cold gateway (pool empty) for ${seconds} s...`);
    const cold = await measure(
      load,
      chunk,
      "POST /v1/payments, pool empty at start",
      url(gatewayServer),
      key,
      {
        seconds,
      },
    );
    const derivedDuringCold = await nextIndex(db, ACCOUNT_INDEX.live);
    console.log(`${target.label}: bare baseline for ${seconds} s...`);
    const baseline = await measure(load, chunk, "bare Hono: key lookup + INSERT", url(baselineServer), key, {
      seconds,
    });
    console.log(
      `${target.label}: filling the pool with ${warmRequests} addresses, then the gateway again...`,
    );
    const start = performance.now();
    const addresses = await fillAddressPool(
      { ...gw.deps, config: { ...gw.deps.config, addressPoolSize: warmRequests } },
      false,
    );
    const fill = { addresses, ms: performance.now() - start };
    const warm = await measure(load, chunk, "POST /v1/payments, pool pre-filled", url(gatewayServer), key, {
      total: warmRequests,
    });
    return { target: target.label, cold, baseline, warm, fill, derivedDuringCold };
  } finally {
    await gatewayServer?.shutdown();
    await baselineServer?.shutdown();
    await gw.close();
  }
}

function render(results: Result[]): string {
  const rows: string[][] = [];
  for (const r of results) {
    for (const p of [r.cold, r.baseline, r.warm]) {
      const total = Object.values(p.statuses).reduce((a, b) => a + b, 0);
      rows.push([
        r.target,
        p.label,
        fmt(p.seconds, 1),
        fmt(p.perSecond),
        fmt(median(p.chunkRates)),
        String(total - p.created),
        fmt(p.p50, 1),
        fmt(p.p99, 1),
        p === r.baseline ? "" : fmt(p.perSecond / r.baseline.perSecond, 2),
      ]);
    }
  }
  return formatTable(
    ["database", "route", "s", "201/s", "median 201/s", "non-201", "p50 ms", "p99 ms", "x baseline"],
    rows,
  );
}

export async function runPayinBench(
  options: BenchOptions = { smoke: Deno.args.includes("--smoke") },
): Promise<void> {
  const smoke = options.smoke;
  const started = performance.now();
  const targets = await benchTargets(options);

  const load = new LoadGenerator();
  const results: Result[] = [];
  try {
    for (const open of targets) {
      const target = await open();
      try {
        results.push(await benchTarget(target, load, options));
      } finally {
        await target.cleanup();
      }
    }
  } finally {
    load.close();
  }

  console.log(
    `\nPay-in creation vs bare baseline over HTTP (127.0.0.1, load from a Worker thread), concurrency ` +
      `${CONCURRENCY}${smoke ? " (SMOKE: figures too short to quote)" : ""}.\n` +
      `201/s over the whole phase, "median 201/s" of its ${
        smoke ? 200 : 1000
      }-request chunks; p50 (the median) and p99 ` +
      `are of 201 answers; non-201 counts every other answer (including client errors).\n`,
  );
  console.log(render(results));
  console.log("");
  for (const r of results) {
    console.log(
      `${r.target}: cold run reserved ${r.derivedDuringCold} address indexes (derived on the spot or by the refill); ` +
        `pre-fill of ${r.fill.addresses} addresses took ${fmt(r.fill.ms / 1000, 1)} s ` +
        `(${fmt(r.fill.ms / Math.max(1, r.fill.addresses), 3)} ms each)`,
    );
    for (const p of [r.cold, r.baseline, r.warm]) {
      const cpu = p.cpuPerCreated;
      console.log(
        `  ${p.label}: ${formatStatuses(p.statuses)}; CPU ms per 201: main thread ${fmt(cpu.main, 3)}, ` +
          `whole bench process ${fmt(cpu.process, 3)}` +
          (cpu.postgres === undefined ? "" : `, PostgreSQL server ${fmt(cpu.postgres, 3)}`),
      );
    }
  }
  const summary = results.map((r) =>
    `${r.target} cold ${fmt(r.cold.perSecond)} created/s = ${
      fmt(r.cold.perSecond / r.baseline.perSecond, 2)
    } x ` +
    `baseline, p99 ${fmt(r.cold.p99, 1)} ms, ${
      Object.values(r.cold.statuses).reduce((a, b) => a + b, 0) - r.cold.created
    } non-201 (pre-filled ${fmt(r.warm.perSecond / r.baseline.perSecond, 2)} x)`
  );
  console.log(`\nSummary: ${summary.join("; ")}.`);
  console.log(`Total ${fmt((performance.now() - started) / 1000, 1)} s`);
}
