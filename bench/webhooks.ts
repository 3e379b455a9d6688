// Webhook delivery at volume, through the production path: emitEvent writes the event and its deliveries
// and enqueues one KV message each on an on-disk Deno KV (as the server's default), the KV queue listener
// hands them to jobs/mod.ts's dispatcher, the pump claims them under leases, signs, POSTs to the pinned
// address and records every attempt. The receiver is a real Deno.serve on 127.0.0.1 in a Worker (its own
// thread) that notes when each event first arrives.
//
// Two measures per round:
// - drain: EVENTS events are committed and queued with no listener running, then the listener starts;
//   signed deliveries per second until the last one arrives.
// - first attempt: events committed one by one at a steady STEADY_RATE/s while the listener runs; the
//   delay from each commit (emitEvent returned) to its first arrival at the receiver, p50 and p99.
// The baseline is a bare loop of signed fetches (HMAC per request, keep-alive) to the same receiver at
// the pump's concurrency: what the network and the receiver allow with no database at all.
// Round 1 starts cold (fresh database, KV, connections and pump); the table shows it beside the median.
import { parseConfig } from "../config.ts";
import { systemClock } from "../domain/clock.ts";
import { SecretBox } from "../domain/crypto.ts";
import { type Deps, kvQueue } from "../domain/deps.ts";
import { emitEvent } from "../domain/webhooks/events.ts";
import { createLogger } from "../domain/log.ts";
import { createMerchant } from "../domain/merchants/mod.ts";
import { signatureHeader } from "../domain/webhooks/delivery.ts";
import { createWebhookEndpoint } from "../domain/webhooks/endpoints.ts";
import { dispatchJob } from "../jobs/mod.ts";
import { deliveryPump } from "../jobs/webhook_delivery.ts";
import {
  type BenchTarget,
  findPostgres,
  fmt,
  formatTable,
  median,
  percentile,
  pgliteTarget,
  postgresTarget,
  runPool,
} from "./lib.ts";
import { type BenchReceiver, startBenchReceiver } from "./webhook_receiver.ts";

const SMOKE = Deno.args.includes("--smoke");
/** `--profile`: print, per target, the statements run and the time spent in each kind. */
const PROFILE = Deno.args.includes("--profile");
const EVENTS = SMOKE ? 300 : 10_000;
const ROUNDS = SMOKE ? 1 : 3;
/** Merchants, one endpoint each; events are spread over them. */
const MERCHANTS = 10;
const STEADY_RATE = 200;
const STEADY_EVENTS = SMOKE ? 200 : 2_000;
const EMIT_CONCURRENCY = 20;

type Round = { drainPerSec: number; baselinePerSec: number; p50: number; p99: number };

const epochMs = () => performance.timeOrigin + performance.now();

/** The KV queue, remembering enqueues still under way so a round can wait for them before closing. */
const pendingEnqueues = new Set<Promise<void>>();
function trackedQueue(queue: Deps["queue"]): Deps["queue"] {
  return {
    enqueue(message, options) {
      const p = queue.enqueue(message, options);
      pendingEnqueues.add(p);
      return p.finally(() => pendingEnqueues.delete(p));
    },
  };
}

async function benchDeps(target: BenchTarget, kv: Deno.Kv): Promise<Deps> {
  const config = parseConfig({
    APP_ENV: "development",
    APP_SECRET: "bench-app-secret-0123456789-abcdefghij",
    ADMIN_TOKEN: "bench-admin-token-0123456789",
    JOBS_ENABLED: "false",
    TRON_MNEMONIC: "test test test test test test test test test test test junk",
  });
  return {
    db: target.db,
    kv,
    clock: systemClock,
    config,
    secrets: await SecretBox.fromAppSecret(config.appSecret!),
    queue: trackedQueue(kvQueue(kv)),
    log: createLogger("warn"),
    fetch,
  } as unknown as Deps; // the delivery path uses neither the TRON client nor the fiat providers
}

async function oneRound(target: BenchTarget, receiver: BenchReceiver) {
  const kvDir = await Deno.makeTempDir({ prefix: "gateway-bench-kv-" });
  const kv = await Deno.openKv(`${kvDir}/kv.sqlite3`);
  const deps = await benchDeps(target, kv);
  let stopped = false;
  try {
    const owners: Array<{ merchantId: string; isSandbox: boolean }> = [];
    for (let m = 0; m < MERCHANTS; m++) {
      const { merchantId } = await createMerchant(deps, { name: `Bench Shop ${m}`, kybStatus: "APPROVED" });
      const owner = { merchantId, isSandbox: false };
      await createWebhookEndpoint(deps, { ...owner, url: receiver.url, events: ["payin.confirmed"] });
      owners.push(owner);
    }
    const emit = (i: number) =>
      emitEvent(deps, {
        ...owners[i % MERCHANTS],
        type: "payin.confirmed",
        data: {
          transactionId: `pay_bench_${i}`,
          amount: "10.000000",
          status: "CONFIRMED",
          currency: "USDT_TRC20",
        },
      });

    // Drain: everything committed and queued first, then the listener starts.
    await runPool(EVENTS, EMIT_CONCURRENCY, emit);
    const drained = receiver.expect(EVENTS);
    const started = epochMs();
    kv.listenQueue((message) => stopped ? undefined : dispatchJob(message as never, deps));
    const drainArrivals = await drained;
    const drainMs = Math.max(...drainArrivals.values()) - started;

    // First attempt: commits at a steady rate while the listener runs.
    const steady = receiver.expect(STEADY_EVENTS);
    const committed = new Map<string, number>();
    const t0 = performance.now();
    await runPool(STEADY_EVENTS, EMIT_CONCURRENCY, async (i) => {
      const wait = t0 + (i * 1000) / STEADY_RATE - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const { eventId } = await emit(EVENTS + i);
      committed.set(eventId, epochMs());
    });
    const steadyArrivals = await steady;
    const delays = [...committed].map(([id, at]) => steadyArrivals.get(id)! - at);
    return {
      drainPerSec: EVENTS / (drainMs / 1000),
      p50: percentile(delays, 50),
      p99: percentile(delays, 99),
    };
  } finally {
    // Arrival is counted before the attempt is recorded: let the last outcomes be written.
    await deliveryPump(deps).idle();
    await Promise.allSettled([...pendingEnqueues]);
    stopped = true;
    deliveryPump(deps).close();
    kv.close();
    await Deno.remove(kvDir, { recursive: true }).catch(() => {});
  }
}

/** Signed fetches in a bare loop, at the pump's concurrency, to the same receiver. */
async function baseline(receiver: BenchReceiver, workers: number) {
  const body = JSON.stringify({ event: "payin.confirmed", data: { transactionId: "pay_bench" } });
  const done = receiver.expect(EVENTS);
  const started = epochMs();
  await runPool(EVENTS, workers, async (i) => {
    const res = await fetch(receiver.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "Service-Signature": await signatureHeader("whs_bench", body, new Date()),
        "Service-Event-Id": `evt_baseline_${i}_${started}`,
      },
      body,
    });
    await res.body?.cancel();
  });
  const arrivals = await done;
  return EVENTS / ((Math.max(...arrivals.values()) - started) / 1000);
}

function profiled(target: BenchTarget): BenchTarget {
  if (!PROFILE) return target;
  const stats = new Map<string, { n: number; ms: number }>();
  const query = target.db.query.bind(target.db);
  target.db.query = (async (text: string, params?: unknown[]) => {
    const t0 = performance.now();
    try {
      return await query(text, params);
    } finally {
      const key = text.trim().replace(/\s+/g, " ").slice(0, 60);
      const s = stats.get(key) ?? { n: 0, ms: 0 };
      stats.set(key, { n: s.n + 1, ms: s.ms + performance.now() - t0 });
    }
  }) as typeof target.db.query;
  const cleanup = target.cleanup;
  target.cleanup = () => {
    const rows = [...stats].sort((a, b) => b[1].ms - a[1].ms).slice(0, 8);
    console.log(
      formatTable(
        ["statement", "count", "ms total", "ms each"],
        rows.map(([k, s]) => [k, String(s.n), fmt(s.ms), fmt(s.ms / s.n, 2)]),
      ),
    );
    return cleanup();
  };
  return target;
}

async function benchTarget(make: () => Promise<BenchTarget>, workers: number) {
  const receiver = await startBenchReceiver();
  const rounds: Round[] = [];
  let label = "";
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const target = profiled(await make()); // cold: a fresh database each round
      label = target.label;
      try {
        const base = await baseline(receiver, workers);
        rounds.push({ ...await oneRound(target, receiver), baselinePerSec: base });
      } finally {
        await target.cleanup();
      }
    }
    return { label, rounds, duplicates: receiver.duplicates() };
  } finally {
    await receiver.close();
  }
}

export async function runWebhooksBench(): Promise<void> {
  const workers = parseConfig({ APP_ENV: "development" }).webhookWorkers;
  console.log(
    `webhooks: ${EVENTS} events queued then drained, ${STEADY_EVENTS} more at ${STEADY_RATE}/s for the ` +
      `commit-to-first-attempt delay; ${MERCHANTS} merchants; ${ROUNDS} round(s)${SMOKE ? " (smoke)" : ""}\n`,
  );
  const results = [await benchTarget(pgliteTarget, workers)];
  const pg = await findPostgres();
  if (pg) results.push(await benchTarget(() => postgresTarget(pg.url, pg.poolSize), workers));
  else console.log("PostgreSQL: not reachable (set DATABASE_URL), skipped\n");
  const rows = results.map(({ label, rounds, duplicates }) => {
    const m = (f: (r: Round) => number) => median(rounds.map(f));
    const drain = m((r) => r.drainPerSec);
    const base = m((r) => r.baselinePerSec);
    return [
      label,
      fmt(drain),
      rounds.map((r) => fmt(r.drainPerSec)).join(" / "),
      fmt(base),
      `${fmt(drain / base, 2)}x`,
      fmt(m((r) => r.p50)),
      fmt(m((r) => r.p99)),
      String(duplicates),
    ];
  });
  console.log(formatTable(
    [
      "database",
      "deliveries/s (median)",
      "each round (1st cold)",
      "bare signed fetch/s",
      "ratio",
      "commit->1st attempt p50 ms",
      "p99 ms",
      "duplicates",
    ],
    rows,
  ));
  console.log(
    `\ntargets: >= 1000 deliveries/s; first attempt p99 <= 1000 ms. Workers per process: ${workers}.`,
  );
}
