// The transactions bench's export: the CSV of the whole history in one job, its rows/s and memory, then
// the download streamed through the app. On PostgreSQL the job runs where a user's runs: in a FRESH process
// started as `deno task serve` starts the server (its V8 flags, read from deno.json) with the bench's
// DATABASE_URL (bench/transactions_export_child.ts), which reports its own idle and peak RSS. The bench
// process is no server: it has just generated the history and holds what that left behind. PGlite lives
// inside the process that opened it (a second process cannot open the same files), so there the job runs
// in the bench process and the figure says so.
import type { Caller } from "../domain/auth.ts";
import { runExportJob } from "../domain/exports/run.ts";
import { startTransactionsExport } from "../domain/transactions/export.ts";
import type { startBenchGateway } from "./gateway.ts";
import type { BenchTarget } from "./lib.ts";
import { fmt } from "./lib.ts";
import type { ChildReport } from "./transactions_export_child.ts";

export const EXPORT_COLUMNS = [
  "database",
  "where the job ran",
  "rows",
  "export s",
  "rows/s",
  "idle RSS MB",
  "peak RSS MB",
  "peak - idle MB",
  "download MB/s",
];

const mb = (bytes: number) => bytes / 1024 / 1024;

/** The `--v8-flags=...` of `deno task serve` in deno.json: how the server's V8 is started. */
export async function serverV8Flags(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  const serve = String(config.tasks?.serve ?? "");
  return serve.split(/\s+/).filter((word) => word.startsWith("--v8-flags="));
}

async function inFreshProcess(target: BenchTarget, jobId: string): Promise<ChildReport & { where: string }> {
  const flags = await serverV8Flags();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...flags,
      "--allow-all",
      new URL("./transactions_export_child.ts", import.meta.url).pathname,
      `--schema=${target.postgres!.schema}`,
      `--job=${jobId}`,
    ],
    env: { DATABASE_URL: target.postgres!.url },
    stdout: "piped",
    stderr: "inherit",
  });
  const out = await child.output();
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
  if (!out.success) throw new Error(`export child exited ${out.code}: ${lines.join("\n")}`);
  const report = JSON.parse(lines[lines.length - 1]) as ChildReport;
  return { ...report, where: `fresh process, ${flags.join(" ") || "no V8 flags"}` };
}

/** The bench process itself (PGlite): its idle is whatever generating the history left. */
async function inBenchProcess(
  gw: Awaited<ReturnType<typeof startBenchGateway>>,
  jobId: string,
): Promise<ChildReport & { where: string }> {
  const idleRss = Deno.memoryUsage().rss;
  let peakRss = idleRss;
  let peakHeapUsed = 0;
  const sampler = setInterval(() => {
    const m = Deno.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeapUsed = Math.max(peakHeapUsed, m.heapUsed);
  }, 20);
  const t0 = performance.now();
  let outcome;
  do outcome = await runExportJob(gw.deps, jobId); while (outcome === "CONTINUE");
  const exportMs = performance.now() - t0;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
  return { outcome, idleRss, peakRss, peakHeapUsed, exportMs, where: "bench process (after generating)" };
}

export async function benchExport(
  target: BenchTarget,
  gw: Awaited<ReturnType<typeof startBenchGateway>>,
  merchantId: string,
  key: string,
  endAt: Date,
): Promise<string[]> {
  const caller = { merchantId, isSandbox: false } as Caller;
  const from = new Date(endAt.getTime() - 400 * 86_400_000).toISOString();
  const started = await startTransactionsExport(gw.deps, caller, { from, to: endAt.toISOString() });
  const run = target.postgres
    ? await inFreshProcess(target, started.jobId)
    : await inBenchProcess(gw, started.jobId);
  if (run.outcome !== "COMPLETED") throw new Error(`export ended ${run.outcome}`);
  const [job] = await gw.deps.db.query<{ rows_written: string }>(
    "SELECT rows_written FROM export_jobs WHERE id = $1",
    [started.jobId],
  );
  const rows = Number(job.rows_written);
  const d0 = performance.now();
  const res = await gw.app.request(`/v1/exports/${started.jobId}/download`, {
    headers: { "x-api-key": key },
  });
  let bytes = 0;
  for await (const chunk of res.body!) bytes += chunk.length;
  const downloadMs = performance.now() - d0;
  return [
    target.label,
    run.where,
    String(rows),
    fmt(run.exportMs / 1000, 1),
    fmt(rows / (run.exportMs / 1000)),
    fmt(mb(run.idleRss), 1),
    fmt(mb(run.peakRss), 1),
    fmt(mb(run.peakRss - run.idleRss), 1),
    fmt(mb(bytes) / (downloadMs / 1000), 1),
  ];
}
