// Export jobs as the merchant sees them: started at once and answered `{ jobId, status }`, read back with
// GET /v1/exports/:jobId/status, fetched with /download once COMPLETED. A job belongs to one merchant
// and one mode: another merchant's id, or a sandbox job asked with a live key, is NOT_FOUND.
import * as store from "../../db/exports.ts";
import type { Caller } from "../auth.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isWellFormedId, newId } from "../ids.ts";
import { exportKind, type ExportKindName } from "./registry.ts";

export const EXPORT_STATUSES = ["QUEUED", "RUNNING", "COMPLETED", "FAILED", "EXPIRED"] as const;

/** Unfinished jobs a merchant may have per mode; one more waits (RATE_LIMITED, Retry-After). */
export const MAX_OPEN_EXPORTS = 3;
const RETRY_AFTER_S = 30;

const scopeOf = (caller: Caller) => ({ merchantId: caller.merchantId, isSandbox: caller.isSandbox });

/**
 * Creates the job and enqueues its run after commit. The same request while an identical job is still
 * open answers that job (50 identical requests make one file).
 */
export async function startExport(
  deps: Pick<Deps, "db" | "clock" | "queue">,
  caller: Caller,
  job: { kind: ExportKindName; params: Record<string, unknown>; key: string },
): Promise<{ jobId: string; status: string }> {
  const scope = scopeOf(caller);
  const paramsKey = `${job.kind}|${job.key}`;
  return await deps.db.tx(async (tx) => {
    await store.lockMerchantExports(tx, scope.merchantId);
    const open = await store.findOpenJob(tx, scope, paramsKey);
    if (open) return { jobId: open.id, status: open.status };
    if (await store.countOpenJobs(tx, scope) >= MAX_OPEN_EXPORTS) {
      throw new AppError(
        "RATE_LIMITED",
        `At most ${MAX_OPEN_EXPORTS} exports run at once; retry when one has finished`,
        { headers: { "Retry-After": String(RETRY_AFTER_S) } },
      );
    }
    const created = await store.insertJob(tx, {
      ...scope,
      id: newId("exp"),
      kind: job.kind,
      params: job.params,
      paramsKey,
      now: deps.clock.now(),
    });
    tx.afterCommit(() => deps.queue.enqueue({ type: "export.run", jobId: created.id }));
    return { jobId: created.id, status: created.status };
  });
}

async function ownJob(deps: Pick<Deps, "db">, caller: Caller, jobId: string) {
  const job = isWellFormedId("exp", jobId) ? await store.findJob(deps.db, scopeOf(caller), jobId) : undefined;
  if (!job) throw new AppError("NOT_FOUND", "Export job not found");
  return job;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function exportStatusView(job: store.ExportJobRow) {
  const params = job.params as { from?: unknown; to?: unknown };
  return {
    jobId: job.id,
    kind: job.kind,
    status: job.status,
    from: typeof params.from === "string" ? params.from : null,
    to: typeof params.to === "string" ? params.to : null,
    rows: Number(job.rows_written),
    bytes: Number(job.bytes_written),
    createdAt: job.created_at.toISOString(),
    startedAt: iso(job.started_at),
    completedAt: iso(job.completed_at),
    expiresAt: iso(job.expires_at),
    downloadUrl: job.status === "COMPLETED" ? `/v1/exports/${job.id}/download` : null,
    error: job.status === "FAILED" ? "The export could not be built; start a new one" : null,
  };
}

export async function getExportStatus(deps: Pick<Deps, "db">, caller: Caller, jobId: string) {
  return exportStatusView(await ownJob(deps, caller, jobId));
}

/**
 * The finished file as a stream of its chunks, one read per pull, so a download of any size holds one
 * chunk in memory. Its length is known (Content-Length) from the job.
 */
export async function openExportDownload(deps: Pick<Deps, "db">, caller: Caller, jobId: string) {
  const job = await ownJob(deps, caller, jobId);
  if (job.status !== "COMPLETED") {
    const why = job.status === "EXPIRED"
      ? "its file was deleted; start a new export"
      : job.status === "FAILED"
      ? "it failed; start a new export"
      : "it is not finished; poll its status";
    throw new AppError("INVALID_STATE", `Export ${job.id} is ${job.status}: ${why}`);
  }
  const kind = exportKind(job.kind);
  if (!kind) throw new Error(`export job ${job.id} has an unknown kind ${job.kind}`);
  let seq = 0;
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (seq >= job.chunk_count) {
        controller.close();
        return;
      }
      const text = await store.readChunk(deps.db, job.id, seq++);
      // Chunks go only with the job (expiry), so a missing one means the file was purged meanwhile.
      if (text === undefined) controller.error(new Error(`export ${job.id} lost chunk ${seq - 1}`));
      else controller.enqueue(encoder.encode(text));
    },
  });
  return {
    stream,
    contentType: kind.contentType,
    filename: kind.filename(job.params),
    length: Number(job.bytes_written),
  };
}
