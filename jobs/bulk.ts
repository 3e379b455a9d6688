// Bulk payment batches on their way: the queue message advances one batch now (and comes back while it
// is processing); the cron sweep advances every processing batch, so a lost message or a crash only
// delays a batch by a minute.
import type { Deps, JobMessage } from "../domain/deps.ts";
import { ADVANCE_AGAIN_MS, advanceBatch } from "../domain/bulk/run.ts";
import { listProcessingBatches } from "../db/bulk.ts";

export async function handleBulkAdvance(
  message: Extract<JobMessage, { type: "bulk.advance" }>,
  deps: Deps,
): Promise<void> {
  const status = await advanceBatch(deps, message.batchId);
  if (status === "PROCESSING") {
    await deps.queue.enqueue({ type: "bulk.advance", batchId: message.batchId }, {
      delayMs: ADVANCE_AGAIN_MS,
    });
  }
}

export async function handleBulkSweep(deps: Deps): Promise<number> {
  let advanced = 0;
  for (const { id } of await listProcessingBatches(deps.db, 100)) {
    try {
      await advanceBatch(deps, id);
      advanced++;
    } catch (err) {
      deps.log.error("bulk batch advance failed", { id, error: String(err) });
    }
  }
  return advanced;
}
