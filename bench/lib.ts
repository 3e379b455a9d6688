// Shared tools of the benchmarks: the options every bench takes, the databases to run against, a worker
// pool, interleaved repeats with medians, cold-then-warm timing, and a plain-text table.
import postgres from "postgres";
import { readDatabaseConfig } from "../config.ts";
import { migrate } from "../db/migrate.ts";
import type { Db } from "../db/mod.ts";
import { openPglite } from "../db/pglite.ts";
import { openPostgres } from "../db/postgres.ts";

/** What `deno task bench <name> [--smoke]` passes to every bench's run function. */
export type BenchOptions = {
  /** A tiny run on one database, only to prove the bench still works end to end (CI); figures mean nothing. */
  smoke: boolean;
  /** `--seconds=N`: how long a timed phase lasts instead of the bench's default (benches that have phases). */
  seconds?: number;
  /** `--only=pglite|postgres`: one database instead of both (a full run's default). */
  only?: "pglite" | "postgres";
  /** `--rows=N`: the main row count of benches that generate a history (transactions, analytics). */
  rows?: number;
  /** `--history=N`: benches that can surround their subject with N generated history rows (console). */
  history?: number;
};

/** Where a bench runs when DATABASE_URL is unset but a local server answers. */
export const LOCAL_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/postgres";

export type BenchTarget = {
  label: string;
  db: Db;
  /** PostgreSQL only: where another process finds the same data (the bench's schema in that database). */
  postgres?: { url: string; schema: string };
  /** Closes the database and removes whatever the bench created (temp dir, schema). */
  cleanup(): Promise<void>;
};

/** A migrated PGlite in a fresh temp directory: on disk, as the gateway runs by default. */
export async function pgliteTarget(): Promise<BenchTarget> {
  const dir = await Deno.makeTempDir({ prefix: "gateway-bench-" });
  const db = await openPglite(`${dir}/pg`);
  await migrate(db);
  return {
    label: "PGlite",
    db,
    async cleanup() {
      await db.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** A migrated throwaway schema on PostgreSQL, dropped by cleanup. */
export async function postgresTarget(url: string, poolSize: number): Promise<BenchTarget> {
  const schema = `bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE SCHEMA ${schema}`);
  const db = await openPostgres(url, poolSize, schema);
  await migrate(db);
  return {
    label: `PostgreSQL (pool ${poolSize})`,
    db,
    postgres: { url, schema },
    async cleanup() {
      await db.close();
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/**
 * The databases a bench runs on, side by side: embedded PGlite (the default a fresh clone starts with) and
 * PostgreSQL when findPostgres finds one. A smoke run takes exactly one: PostgreSQL when DATABASE_URL is
 * set, else PGlite, so CI running each bench with and without DATABASE_URL covers both drivers once.
 */
export async function benchTargets(options: BenchOptions): Promise<Array<() => Promise<BenchTarget>>> {
  const pg = await findPostgres(options);
  if (options.smoke) return [pg ? () => postgresTarget(pg.url, pg.poolSize) : pgliteTarget];
  if (options.only === "pglite") return [pgliteTarget];
  if (options.only === "postgres") {
    if (!pg) throw new Error("--only=postgres: DATABASE_URL unset and 127.0.0.1:5432 not answering");
    return [() => postgresTarget(pg.url, pg.poolSize)];
  }
  if (!pg) console.log("PostgreSQL: DATABASE_URL unset and 127.0.0.1:5432 not answering; PGlite only.");
  return pg ? [pgliteTarget, () => postgresTarget(pg.url, pg.poolSize)] : [pgliteTarget];
}

/**
 * DATABASE_URL when set, else the local server if port 5432 answers, else none. A smoke run never probes:
 * it uses PostgreSQL only when told to.
 */
export async function findPostgres(
  options: BenchOptions = { smoke: false },
): Promise<{ url: string; poolSize: number } | undefined> {
  const config = readDatabaseConfig();
  if (config.databaseUrl) return { url: config.databaseUrl, poolSize: config.databasePoolSize };
  if (options.smoke) return undefined;
  try {
    const conn = await withTimeout(Deno.connect({ hostname: "127.0.0.1", port: 5432 }), 500);
    conn.close();
    return { url: LOCAL_POSTGRES_URL, poolSize: config.databasePoolSize };
  } catch {
    return undefined;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Runs `task(0..total-1)` with at most `concurrency` in flight; returns elapsed milliseconds. */
export async function runPool(
  total: number,
  concurrency: number,
  task: (i: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < total) await task(next++);
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return performance.now() - start;
}

/**
 * Times `task` once from cold (the first call in a fresh process and database, as a user's server meets
 * it), then `warmRuns` more times; answers the cold figure and the warm ones so a bench prints both.
 */
export async function coldThenWarm(
  warmRuns: number,
  task: () => Promise<number>,
): Promise<{ cold: number; warm: number[] }> {
  const cold = await task();
  const warm: number[] = [];
  for (let i = 0; i < warmRuns; i++) warm.push(await task());
  return { cold, warm };
}

export function perSecond(count: number, ms: number): number {
  return count / (ms / 1000);
}

export function median(values: number[]): number {
  if (values.length === 0) throw new Error("median of nothing");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Runs each variant once per round, `rounds` times, alternating which goes first, so drift of the
 * machine (cache warmth, other load, a growing table) lands on all of them alike. Returns the samples.
 */
export async function interleaved(
  rounds: number,
  variants: Record<string, () => Promise<number>>,
): Promise<Record<string, number[]>> {
  const names = Object.keys(variants);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) samples[name].push(await variants[name]());
  }
  return samples;
}

/** Formats rows as an aligned text table: first column left-aligned, the rest right-aligned. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

export function fmt(value: number, decimals = 0): string {
  return value.toFixed(decimals);
}

/** The value at or below which `p` percent of `values` fall (nearest rank); `p` in 0..100. */
export function percentile(values: ArrayLike<number>, p: number): number {
  if (values.length === 0) throw new Error("percentile of nothing");
  const sorted = Float64Array.from(values).sort();
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export type LoadSpec = {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  total: number;
  concurrency: number;
};

export type LoadResult = {
  /** Wall time from the first request sent to the last response read, in milliseconds. */
  elapsedMs: number;
  /** One latency per request (send to last body byte), in milliseconds. */
  latencies: Float64Array;
  /** Each request's HTTP status; 0 when the client itself failed (connection refused, reset). */
  codes: Uint16Array;
  /** How many responses had each HTTP status. */
  statuses: Record<number, number>;
  /** All responses per second, whatever their status. */
  requestsPerSecond: number;
  /** 2xx responses per second: the work actually done. */
  okPerSecond: number;
  /** Latency percentiles of the 2xx responses (a fast refusal is not a fast creation); NaN when none. */
  p50: number;
  p99: number;
};

// The load generator's code, run in a Worker: its own thread and event loop, so sending requests and
// reading responses never queues behind the server's handlers (nor the reverse). Plain JavaScript, so the
// worker starts without type-checking or importing anything. fetch keeps connections alive, so at most
// `concurrency` sockets are opened and reused.
const LOAD_WORKER_SOURCE = `
self.onmessage = async (e) => {
  const spec = e.data;
  const latencies = new Float64Array(spec.total);
  const codes = new Uint16Array(spec.total);
  let next = 0;
  const one = async (i) => {
    const t0 = performance.now();
    let status = 0;
    try {
      const res = await fetch(spec.url, { method: spec.method, headers: spec.headers, body: spec.body });
      await res.arrayBuffer();
      status = res.status;
    } catch {
      status = 0;
    }
    latencies[i] = performance.now() - t0;
    codes[i] = status;
  };
  const worker = async () => {
    while (next < spec.total) await one(next++);
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: Math.min(spec.concurrency, spec.total) }, worker));
  const elapsedMs = performance.now() - start;
  self.postMessage({ elapsedMs, latencies, codes }, [latencies.buffer, codes.buffer]);
};
`;

/**
 * A load generator on another thread (a Worker with its own event loop). `run` sends `total` requests with
 * at most `concurrency` in flight and answers the timing; runs are sequential.
 */
export class LoadGenerator {
  #worker: Worker;
  #url: string;
  #busy: Promise<unknown> = Promise.resolve();

  constructor() {
    this.#url = URL.createObjectURL(new Blob([LOAD_WORKER_SOURCE], { type: "application/javascript" }));
    this.#worker = new Worker(this.#url, { type: "module" });
  }

  run(spec: LoadSpec): Promise<LoadResult> {
    const result = this.#busy.then(() =>
      new Promise<LoadResult>((resolve, reject) => {
        this.#worker.onmessage = (e: MessageEvent) => {
          const { elapsedMs, latencies, codes } = e.data as {
            elapsedMs: number;
            latencies: Float64Array;
            codes: Uint16Array;
          };
          resolve(summarizeLoad(elapsedMs, latencies, codes));
        };
        this.#worker.onerror = (e) => {
          e.preventDefault();
          reject(new Error(`load worker failed: ${e.message}`));
        };
        this.#worker.postMessage(spec);
      })
    );
    this.#busy = result.catch(() => {});
    return result;
  }

  close(): void {
    this.#worker.terminate();
    URL.revokeObjectURL(this.#url);
  }
}

function summarizeLoad(elapsedMs: number, latencies: Float64Array, codes: Uint16Array): LoadResult {
  const statuses: Record<number, number> = {};
  const ok: number[] = [];
  codes.forEach((code, i) => {
    statuses[code] = (statuses[code] ?? 0) + 1;
    if (code >= 200 && code < 300) ok.push(latencies[i]);
  });
  return {
    elapsedMs,
    latencies,
    codes,
    statuses,
    requestsPerSecond: perSecond(codes.length, elapsedMs),
    okPerSecond: perSecond(ok.length, elapsedMs),
    p50: ok.length ? percentile(ok, 50) : NaN,
    p99: ok.length ? percentile(ok, 99) : NaN,
  };
}

/** A summary of HTTP statuses such as "201 x5000" or "201 x4990, 429 x10". */
export function formatStatuses(statuses: Record<number, number>): string {
  return Object.entries(statuses).sort().map(([status, n]) => `${status} x${n}`).join(", ");
}

/**
 * CPU time used so far, in ms: this process's main thread (where the gateway's JavaScript runs), the whole
 * process (load worker and PGlite included), and the local PostgreSQL server's processes when /proc shows
 * them (undefined elsewhere). Differences between two snapshots say where a phase's time went.
 */
export type CpuSnapshot = { mainMs: number; processMs: number; postgresMs?: number };

const TICK_MS = 10; // USER_HZ is 100 on Linux

function ticksOf(stat: string): number {
  // Fields after the parenthesised command name: utime is the 12th, stime the 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

export function cpuSnapshot(): CpuSnapshot {
  try {
    const mainMs = ticksOf(Deno.readTextFileSync(`/proc/self/task/${Deno.pid}/stat`)) * TICK_MS;
    const processMs = ticksOf(Deno.readTextFileSync("/proc/self/stat")) * TICK_MS;
    let postgresTicks = 0;
    let seen = false;
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      try {
        if (Deno.readTextFileSync(`/proc/${entry.name}/comm`).trim() !== "postgres") continue;
        postgresTicks += ticksOf(Deno.readTextFileSync(`/proc/${entry.name}/stat`));
        seen = true;
      } catch {
        // gone meanwhile, or not ours to read
      }
    }
    return { mainMs, processMs, postgresMs: seen ? postgresTicks * TICK_MS : undefined };
  } catch {
    return { mainMs: NaN, processMs: NaN };
  }
}
