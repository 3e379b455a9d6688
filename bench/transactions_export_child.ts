// One export job run to completion in a fresh process, as a server would run it: started by the
// transactions bench (bench/transactions_export.ts) with the V8 flags of `deno task serve` and the bench's
// DATABASE_URL, it opens the database (`--schema=` names the bench's schema), runs the job's slices one
// after the other as the queue would, and prints one JSON line: its RSS when idle (database open, one
// query answered, nothing exported), its peak RSS during the job, and V8's heap peak.
//   deno run --v8-flags=--max-semi-space-size=4 --allow-all bench/transactions_export_child.ts \
//     --schema=bench_x --job=exp_y
import { readDatabaseConfig } from "../config.ts";
import { openDb } from "../db/open.ts";
import { systemClock } from "../domain/clock.ts";
import { runExportJob } from "../domain/exports/run.ts";
import { createLogger } from "../domain/log.ts";

export type ChildReport = {
  outcome: string;
  idleRss: number;
  peakRss: number;
  peakHeapUsed: number;
  exportMs: number;
};

/** The kernel's figures for this process, in bytes: VmRSS now, VmHWM the highest it has been (Linux). */
async function procStatus(): Promise<{ rss: number; hwm: number } | undefined> {
  try {
    const text = await Deno.readTextFile("/proc/self/status");
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1]) * 1024;
    return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
  } catch {
    return undefined;
  }
}

function arg(name: string): string {
  const value = Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  if (!value) throw new Error(`--${name}= is required`);
  return value;
}

async function main() {
  const config = readDatabaseConfig();
  if (!config.databaseUrl) throw new Error("DATABASE_URL is required (the bench's PostgreSQL)");
  const db = await openDb({ ...config, dataDir: "" }, { schema: arg("schema") });
  const deps = { db, clock: systemClock, log: createLogger("error", (line) => console.error(line)) };
  await db.query("SELECT 1");
  const idle = await procStatus();
  const idleRss = idle?.rss ?? Deno.memoryUsage().rss;
  // VmHWM is exact but counts from the process's start (module loading included, below the job's peak
  // in practice); the 20 ms samples cover systems without /proc.
  let sampled = idleRss;
  let peakHeapUsed = Deno.memoryUsage().heapUsed;
  const sampler = setInterval(() => {
    const m = Deno.memoryUsage();
    sampled = Math.max(sampled, m.rss);
    peakHeapUsed = Math.max(peakHeapUsed, m.heapUsed);
  }, 20);
  const t0 = performance.now();
  let outcome;
  do outcome = await runExportJob(deps, arg("job")); while (outcome === "CONTINUE");
  const exportMs = performance.now() - t0;
  clearInterval(sampler);
  const end = await procStatus();
  const peakRss = Math.max(sampled, end?.hwm ?? 0, Deno.memoryUsage().rss);
  await db.close();
  const report: ChildReport = { outcome, idleRss, peakRss, peakHeapUsed, exportMs };
  console.log(JSON.stringify(report));
}

if (import.meta.main) await main();
