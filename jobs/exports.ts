// Export jobs (domain/exports): a queue message runs one job for a slice of time and, while rows remain,
// enqueues the next slice; the minute sweep runs any job whose message vanished or whose runner died
// (its lease ran out), from the last chunk committed; the hourly purge deletes files past their expiry.
import type { Deps, JobMessage } from "../domain/deps.ts";
import { purgeExpiredExports, runExportJob, sweepExports } from "../domain/exports/run.ts";

export async function handleExportRun(
  message: Extract<JobMessage, { type: "export.run" }>,
  deps: Deps,
): Promise<void> {
  if (await runExportJob(deps, message.jobId) === "CONTINUE") {
    await deps.queue.enqueue({ type: "export.run", jobId: message.jobId });
  }
}

export async function handleExportSweep(deps: Deps): Promise<void> {
  await sweepExports(deps);
}

export async function handleExportPurge(deps: Deps): Promise<void> {
  const expired = await purgeExpiredExports(deps);
  if (expired > 0) deps.log.info("export files expired", { jobs: expired });
}
