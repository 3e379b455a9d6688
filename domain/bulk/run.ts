// Paying a processing batch's items, each on its own and each exactly once, then closing the batch.
// A USDT item becomes a payout row (kind PAYOUT, PROCESSING, keyed by item and attempt) in the same
// transaction that marks it PROCESSING: the existing broadcaster sends it exactly once and its own
// settle or release journal moves its share of IN_FLIGHT. Every step is idempotent and safe with two
// processes (queued items are claimed with SKIP LOCKED); a lost message is picked up by the cron sweep.
import * as store from "../../db/bulk.ts";
import type { Deps } from "../deps.ts";
import { emitEvents } from "../webhooks/events_batch.ts";
import { newId } from "../ids.ts";
import { type OutboundEvent, outboundEventData } from "../money_out/view.ts";
import { dispatchMomoItems } from "./momo.ts";

type RunDeps = Pick<Deps, "db" | "queue" | "clock" | "config" | "log">;

/** Items handed to their rail per transaction. */
export const DISPATCH_CHUNK = 100;
/** While a batch is processing, its run looks again after this long (the cron sweep is the safety net). */
export const ADVANCE_AGAIN_MS = 10_000;

/** The events a payout accepted as PROCESSING emits on the single path (domain/money_out/transition.ts). */
const ACCEPTED_EVENTS: OutboundEvent[] = [
  "payout.requested",
  "withdrawal.requested",
  "payout.approved",
  "withdrawal.approved",
];

/** Hands up to one chunk of queued items to their rail; answers how many. */
export async function dispatchChunk(deps: RunDeps, batch: store.BatchRow): Promise<number> {
  return await deps.db.tx(async (tx) => {
    const items = await store.claimQueued(tx, batch.id, DISPATCH_CHUNK);
    if (items.length === 0) return 0;
    if (batch.rail === "MOBILE_MONEY") {
      await dispatchMomoItems(tx, deps, batch, items);
      return items.length;
    }
    const now = deps.clock.now();
    const pairs = items.map((i) => ({ itemId: i.id, payoutId: newId("pout", now.getTime()) }));
    const payouts = await store.insertItemPayouts(
      tx,
      { merchantId: batch.merchant_id, isSandbox: batch.is_sandbox, batchId: batch.id },
      pairs,
      now,
    );
    await store.markItemsProcessing(tx, pairs.map((p) => ({ itemId: p.itemId, paymentId: p.payoutId })), now);
    await emitEvents(
      { ...deps, db: tx },
      payouts.flatMap((row) =>
        ACCEPTED_EVENTS.map((type) => ({
          merchantId: row.merchant_id,
          isSandbox: row.is_sandbox,
          type,
          data: outboundEventData(row, type),
        }))
      ),
    );
    for (const row of payouts) {
      tx.afterCommit(() => deps.queue.enqueue({ type: "outbound.send", outboundId: row.id }));
    }
    return items.length;
  });
}

/** Closes the batch when no item is queued or processing: COMPLETED, or PARTIALLY_COMPLETED if any failed. */
export async function closeIfDone(deps: RunDeps, batchId: string): Promise<store.BatchRow | undefined> {
  return await deps.db.tx(async (tx) => {
    const batch = await store.lockBatch(tx, batchId);
    if (!batch || batch.status !== "PROCESSING") return undefined;
    const counts = await store.countByStatus(tx, batchId);
    if ((counts.QUEUED ?? 0) > 0 || (counts.PROCESSING ?? 0) > 0) return undefined;
    const to = (counts.FAILED ?? 0) > 0 ? "PARTIALLY_COMPLETED" : "COMPLETED";
    const now = deps.clock.now();
    const moved = await store.moveBatch(tx, batchId, "PROCESSING", to, { completed_at: now }, now);
    deps.log.info("bulk batch finished", {
      id: batchId,
      merchantId: batch.merchant_id,
      to,
      succeeded: counts.SUCCEEDED ?? 0,
      failed: counts.FAILED ?? 0,
    });
    return moved;
  });
}

/**
 * One step of a processing batch: dispatch every queued item, record which payments ended, close the
 * batch if nothing is left. Answers the batch's status afterwards.
 */
export async function advanceBatch(deps: RunDeps, batchId: string): Promise<string | undefined> {
  const batch = await store.findBatchById(deps.db, batchId);
  if (!batch || batch.status !== "PROCESSING") return batch?.status;
  while (await dispatchChunk(deps, batch) > 0) {
    // next chunk
  }
  // USDT items follow their payout rows; mobile money items are finished by their disbursement's finisher.
  if (batch.rail === "USDT_TRC20") await store.syncUsdtItems(deps.db, batchId, deps.clock.now());
  const closed = await closeIfDone(deps, batchId);
  return closed?.status ?? "PROCESSING";
}
