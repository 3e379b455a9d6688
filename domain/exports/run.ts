// Runs export jobs: claim (a lease), write pages as chunks (each with the job's new position, atomically),
// finish. A run works for a slice of time and then hands the job back for the next queue message, so one
// big file never holds a worker for long; a run that dies leaves its lease to run out, and the minute
// sweep (or the next message) goes on from the last committed chunk. Restart-safe and never doubled:
// a chunk is written only by the lease holder, at the position the job row says.
import * as store from "../../db/exports.ts";
import type { Deps } from "../deps.ts";
import { randomToken } from "../ids.ts";
import { exportKind } from "./registry.ts";

/**
 * Rows per chunk (about 110 kB of CSV), the rows a run holds at once. Small, for memory: in a fresh server
 * process (`--max-semi-space-size=4`) the rows of a page of 2,000 outlived V8's young generation and were
 * promoted, and the old generation grew to 137 MB before a full collection (RSS 136-155 MB above idle for
 * a million rows); pages of 500 mostly die young (71-82 MB above idle), at the same rows/s (issue 21).
 */
export const EXPORT_PAGE_ROWS = 500;
/** A run's time before it hands the job to the next message. */
export const EXPORT_SLICE_MS = 20_000;
/** How long a claim holds without news; each chunk renews it. */
export const EXPORT_LEASE_MS = 60_000;
/** Runs that may fail (error or death) before the job is FAILED for good. */
export const EXPORT_MAX_FAILURES = 5;
const RETRY_AFTER_FAILURE_MS = 30_000;
const KEEP_FILES_MS = 7 * 86_400_000;

export type RunOutcome = "COMPLETED" | "CONTINUE" | "BUSY" | "FAILED" | "ERROR";

type RunDeps = Pick<Deps, "db" | "clock" | "log">;

/**
 * One run of one job: `CONTINUE` means the slice ended with rows left (enqueue another run), `BUSY` that
 * another runner holds it or it is finished already, `ERROR` that this run failed and the job is due again
 * in 30 s (the sweep takes it), `FAILED` that it has failed for good.
 */
export async function runExportJob(
  deps: RunDeps,
  jobId: string,
  options: { sliceMs?: number; pageRows?: number } = {},
): Promise<RunOutcome> {
  const token = randomToken(16);
  const started = deps.clock.now();
  const job = await store.claimJob(deps.db, jobId, token, started, EXPORT_LEASE_MS);
  if (!job) return "BUSY";
  const kind = exportKind(job.kind);
  if (!kind || job.failures >= EXPORT_MAX_FAILURES) {
    const error = kind ? `gave up after ${job.failures} failed runs` : `unknown export kind ${job.kind}`;
    await store.failJob(deps.db, job.id, token, error, deps.clock.now());
    deps.log.error("export failed", { jobId: job.id, kind: job.kind, error });
    return "FAILED";
  }
  const scope = { merchantId: job.merchant_id, isSandbox: job.is_sandbox };
  const sliceMs = options.sliceMs ?? EXPORT_SLICE_MS;
  const pageRows = options.pageRows ?? EXPORT_PAGE_ROWS;
  let cursor: unknown = job.cursor ?? null;
  let seq = job.chunk_count;
  try {
    for (;;) {
      const page = await kind.nextPage(deps, scope, job.params, cursor, pageRows);
      const now = deps.clock.now();
      // An empty last page of a file that already has chunks adds nothing; the first one is the header.
      if (page.text.length > 0 || seq === 0) {
        const kept = await store.appendChunk(deps.db, {
          jobId: job.id,
          token,
          seq,
          rows: page.rows,
          text: page.text,
          cursor: page.cursor,
          now,
          leaseMs: EXPORT_LEASE_MS,
        });
        if (!kept) return "BUSY";
        seq++;
      }
      cursor = page.cursor;
      if (page.done) {
        const done = await store.completeJob(
          deps.db,
          job.id,
          token,
          now,
          new Date(now.getTime() + KEEP_FILES_MS),
        );
        if (done) deps.log.info("export completed", { jobId: job.id, kind: job.kind, chunks: seq });
        return done ? "COMPLETED" : "BUSY";
      }
      if (now.getTime() - started.getTime() >= sliceMs) {
        await store.releaseJob(deps.db, job.id, token, now);
        return "CONTINUE";
      }
    }
  } catch (err) {
    const now = deps.clock.now();
    await store.recordFailure(deps.db, {
      id: job.id,
      token,
      error: String(err),
      now,
      retryAt: new Date(now.getTime() + RETRY_AFTER_FAILURE_MS),
      maxFailures: EXPORT_MAX_FAILURES,
    });
    deps.log.error("export run failed", { jobId: job.id, kind: job.kind, error: String(err) });
    return "ERROR";
  }
}

/**
 * The cron safety net: every job due (queued, or running with no live lease: its message vanished or its
 * runner died) gets a run now. Returns how many it ran.
 */
export async function sweepExports(deps: RunDeps & Pick<Deps, "queue">): Promise<number> {
  const due = await store.listDueJobs(deps.db, deps.clock.now(), 5);
  for (const id of due) {
    const outcome = await runExportJob(deps, id);
    if (outcome === "CONTINUE") await deps.queue.enqueue({ type: "export.run", jobId: id });
  }
  return due.length;
}

/** Deletes the files of jobs past `expiresAt` (7 days after they finished). */
export async function purgeExpiredExports(deps: Pick<Deps, "db" | "clock">): Promise<number> {
  return await store.expireJobs(deps.db, deps.clock.now(), 100);
}
