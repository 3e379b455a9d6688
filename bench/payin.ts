// Pay-in creation over HTTP: POST /v1/payments (USDT, amount "10", live secret key of a KYB-approved
// merchant whose rate limits are raised) against a bare baseline, a plain Hono route that parses the same
// body and INSERTs one row of similar width into a scratch table through the same Db seam. Each sits
// behind its own Deno.serve on 127.0.0.1 (port 0) in this process.
//
// The load comes from a Worker (bench/lib.ts LoadGenerator): a separate thread with its own event loop,
// so the client's work never queues behind the server's handlers. A Worker rather than a subprocess
// because it starts in milliseconds, needs no permissions plumbing, and hands latencies back as a
// transferred buffer; on the 2-core machines here either choice competes with the server for CPU alike.
//
// The deposit address pool is filled with fillAddressPool BEFORE anything is measured, with one address
// for every request of the warm-up and every round, so creation only ever claims. The fill is timed and
// reported on its own, and the bench checks afterwards that creation derived nothing.
import { Hono } from "hono";
import { countFree } from "../db/deposit_addresses.ts";
import type { Db } from "../db/mod.ts";
import { fillAddressPool } from "../domain/address_pool.ts";
import { type BenchGateway, startBenchGateway } from "./gateway.ts";
import {
  type BenchOptions,
  type BenchTarget,
  benchTargets,
  fmt,
  formatStatuses,
  formatTable,
  interleaved,
  LoadGenerator,
  type LoadResult,
  median,
} from "./lib.ts";

const CONCURRENCY = 50;
let ROUNDS = 5;
let WARMUP = 200;
/** Requests per measured run, sized so both databases finish (pool fill included) in about 2 minutes. */
let REQUESTS: Record<Db["driver"], number> = { pglite: 600, postgres: 1000 };

/** `--smoke`: a few seconds, only to show the bench still runs end to end. */
function useSmokeSizes(): void {
  [ROUNDS, WARMUP, REQUESTS] = [1, 20, { pglite: 50, postgres: 50 }];
}
const BODY = JSON.stringify({ amount: "10" });

type Sample = { rps: number; ok: number; p50: number; p99: number };
type Result = {
  target: string;
  requests: number;
  fill: { addresses: number; ms: number };
  gateway: Sample[];
  baseline: Sample[];
  statuses: { gateway: Record<number, number>; baseline: Record<number, number> };
  derivedDuringRun: number;
};

/** The baseline: one INSERT of a payins-like row (same column kinds and widths) per request. */
function baselineApp(db: Db): Hono {
  const app = new Hono();
  let seq = 0;
  app.post("/v1/payments", async (c) => {
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
        "mer_bench_baseline_000000",
        body.amount,
        `T${id.padEnd(33, "x").slice(0, 33)}`,
        new Date(
          now.getTime() + 1_800_000,
        ),
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

/** Fills the live pool until `need` addresses are free; answers how many it derived and how long it took. */
async function fillPool(gw: BenchGateway, need: number): Promise<{ addresses: number; ms: number }> {
  const start = performance.now();
  let addresses = 0;
  for (;;) {
    const added = await fillAddressPool(gw.deps, { isSandbox: false, target: need, batch: 500 });
    if (added === 0) break;
    addresses += added;
  }
  return { addresses, ms: performance.now() - start };
}

function serve(handler: (req: Request) => Response | Promise<Response>): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
}

async function benchTarget(target: BenchTarget, load: LoadGenerator): Promise<Result> {
  const { db } = target;
  const requests = REQUESTS[db.driver];
  const gw = await startBenchGateway(db);
  let gatewayServer: Deno.HttpServer<Deno.NetAddr> | undefined;
  let baselineServer: Deno.HttpServer<Deno.NetAddr> | undefined;
  try {
    await createBaselineTable(db);
    gatewayServer = serve(gw.app.fetch);
    baselineServer = serve(baselineApp(db).fetch);
    console.log(`${target.label}: filling the address pool...`);
    const fill = await fillPool(gw, WARMUP + ROUNDS * requests);
    const before = await countFree(db, false);

    const spec = (server: Deno.HttpServer<Deno.NetAddr> | undefined, total: number) => ({
      url: `http://127.0.0.1:${server!.addr.port}/v1/payments`,
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": gw.merchant.liveSecret },
      body: BODY,
      total,
      concurrency: CONCURRENCY,
    });
    const statuses = { gateway: {} as Record<number, number>, baseline: {} as Record<number, number> };
    const tally = (into: Record<number, number>, r: LoadResult) => {
      for (const [s, n] of Object.entries(r.statuses)) into[Number(s)] = (into[Number(s)] ?? 0) + n;
    };

    console.log(`${target.label}: warming up, then ${ROUNDS} rounds of ${requests} requests each...`);
    await load.run(spec(gatewayServer, WARMUP));
    await load.run(spec(baselineServer, WARMUP));
    const samples = { gateway: [] as Sample[], baseline: [] as Sample[] };
    await interleaved(ROUNDS, {
      gateway: async () => {
        const r = await load.run(spec(gatewayServer, requests));
        tally(statuses.gateway, r);
        samples.gateway.push({ rps: r.requestsPerSecond, ok: r.okPerSecond, p50: r.p50, p99: r.p99 });
        return r.okPerSecond;
      },
      baseline: async () => {
        const r = await load.run(spec(baselineServer, requests));
        tally(statuses.baseline, r);
        samples.baseline.push({ rps: r.requestsPerSecond, ok: r.okPerSecond, p50: r.p50, p99: r.p99 });
        return r.okPerSecond;
      },
    });
    const after = await countFree(db, false);
    return {
      target: target.label,
      requests,
      fill,
      ...samples,
      statuses,
      derivedDuringRun: after.nextIndex - before.nextIndex,
    };
  } finally {
    await gatewayServer?.shutdown();
    await baselineServer?.shutdown();
    await gw.close();
  }
}

function render(results: Result[]): string {
  const rows: string[][] = [];
  for (const r of results) {
    const baselineOk = median(r.baseline.map((x) => x.ok));
    for (const variant of ["gateway", "baseline"] as const) {
      const s = r[variant];
      const ok = s.map((x) => x.ok);
      const all = r.statuses[variant];
      const total = Object.values(all).reduce((a, b) => a + b, 0);
      const refused = total -
        Object.entries(all).filter(([c]) => c.startsWith("2")).reduce((a, [, n]) => a + n, 0);
      rows.push([
        r.target,
        variant === "gateway" ? "POST /v1/payments" : "bare Hono INSERT",
        fmt(median(ok)),
        `${fmt(Math.min(...ok))}-${fmt(Math.max(...ok))}`,
        fmt(median(s.map((x) => x.rps))),
        `${fmt((100 * refused) / total, 1)}%`,
        fmt(median(s.map((x) => x.p50)), 1),
        fmt(median(s.map((x) => x.p99)), 1),
        variant === "gateway" ? fmt(median(ok) / baselineOk, 2) : "",
      ]);
    }
  }
  return formatTable(
    [
      "database",
      "route",
      "2xx/s",
      "(min-max)",
      "all req/s",
      "non-2xx",
      "p50 ms",
      "p99 ms",
      "gateway/baseline",
    ],
    rows,
  );
}

export async function runPayinBench(options: BenchOptions): Promise<void> {
  const started = performance.now();
  if (options.smoke) useSmokeSizes();
  const targets = await benchTargets(options);

  const load = new LoadGenerator();
  const results: Result[] = [];
  try {
    for (const open of targets) {
      const target = await open();
      try {
        results.push(await benchTarget(target, load));
      } finally {
        await target.cleanup();
      }
    }
  } finally {
    load.close();
  }

  console.log(
    `\nPay-in creation vs bare baseline over HTTP (127.0.0.1, load from a Worker thread), concurrency ` +
      `${CONCURRENCY}: medians of ${ROUNDS} interleaved rounds. 2xx/s counts created pay-ins (baseline: rows);\n` +
      `"all req/s" includes refusals; p50/p99 are of 2xx responses.\n`,
  );
  console.log(render(results));
  console.log("");
  for (const r of results) {
    console.log(
      `${r.target}: ${r.requests} requests per round; address pool pre-filled with ${r.fill.addresses} ` +
        `addresses in ${fmt(r.fill.ms / 1000, 1)} s (${
          fmt(r.fill.ms / Math.max(1, r.fill.addresses), 2)
        } ms ` +
        `each, off the hot path); addresses derived during the runs: ${r.derivedDuringRun}`,
    );
    console.log(
      `  statuses: gateway ${formatStatuses(r.statuses.gateway)}; baseline ${
        formatStatuses(r.statuses.baseline)
      }`,
    );
  }
  const summary = results.map((r) => {
    const g = median(r.gateway.map((x) => x.ok));
    const b = median(r.baseline.map((x) => x.ok));
    return `${r.target} ${fmt(g)} created/s = ${fmt(g / b, 2)} x baseline (p99 ${
      fmt(median(r.gateway.map((x) => x.p99)), 1)
    } ms)`;
  });
  console.log(`\nSummary: POST /v1/payments at concurrency ${CONCURRENCY}: ${summary.join("; ")}.`);
  console.log(`Total ${fmt((performance.now() - started) / 1000, 1)} s`);
}
