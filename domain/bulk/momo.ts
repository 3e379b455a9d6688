// Mobile money items: each becomes one XOF disbursement (domain/fiat_out/disburse.ts) keyed by item and
// attempt, queued in the transaction that marks the item PROCESSING, sent once by the fiat.disburse job.
// Its outcome is finished here, once, in the transaction that records it: paid -> the item's share of
// IN_FLIGHT leaves to WORLD and FEES; failed -> it returns to the merchant's XOF/MOMO wallet.
import * as store from "../../db/bulk.ts";
import { findSystemAccount, findWallet } from "../../db/ledger.ts";
import type { Db } from "../../db/mod.ts";
import type { OperatorCode } from "../../rails/fiat/provider.ts";
import type { Deps } from "../deps.ts";
import { queueDisbursement, registerDisbursementFinisher } from "../fiat_out/disburse.ts";
import { postJournal } from "../ledger.ts";
import { Decimal } from "../money.ts";

/** Queues the disbursements of claimed items and marks them PROCESSING (caller's transaction). */
export async function dispatchMomoItems(
  tx: Db,
  deps: Pick<Deps, "queue" | "clock">,
  batch: store.BatchRow,
  items: store.ItemRow[],
): Promise<void> {
  const now = deps.clock.now();
  const pairs: Array<{ itemId: string; paymentId: string }> = [];
  for (const item of items) {
    const id = await queueDisbursement(tx, {
      reference: `bulk:${item.id}:${item.attempt}`,
      owner: { kind: "BULK_ITEM", id: item.id },
      merchantId: batch.merchant_id,
      isSandbox: batch.is_sandbox,
      channel: "MOMO",
      amount: new Decimal(item.amount).toFixed(0),
      destination: {
        kind: "MOMO",
        momoOperator: item.operator as OperatorCode,
        momoPhone: item.wallet_address,
        label: item.recipient_name,
      },
      now,
    });
    pairs.push({ itemId: item.id, paymentId: id });
    tx.afterCommit(() => deps.queue.enqueue({ type: "fiat.disburse", disbursementId: id }));
  }
  await store.markItemsProcessing(tx, pairs, now);
}

registerDisbursementFinisher("BULK_ITEM", async (tx, disbursement, outcome, ctx) => {
  const item = await store.lockItem(tx, disbursement.owner_id);
  if (!item) throw new Error(`disbursement ${disbursement.id} names a missing bulk item`);
  // An outcome of an older attempt (or a replay) changes nothing: the item moved on.
  if (item.payment_id !== disbursement.id || item.status !== "PROCESSING") return;
  const batch = (await store.findBatchById(tx, item.batch_id))!;
  const isSandbox = batch.is_sandbox;
  const inFlight = await findSystemAccount(tx, "IN_FLIGHT", isSandbox, "MOMO");
  const debited = new Decimal(item.amount).plus(item.fee);
  const base = {
    merchantId: batch.merchant_id,
    isSandbox,
    metadata: { bulkPaymentId: batch.id, bulkItemId: item.id },
  };
  if (outcome.status === "SUCCEEDED") {
    const world = await findSystemAccount(tx, "WORLD", isSandbox, "MOMO");
    const fees = await findSystemAccount(tx, "FEES", isSandbox, "MOMO");
    await postJournal(tx, {
      ...base,
      reference: `bulk:${item.id}:${item.attempt}:settle`,
      kind: "BULK_ITEM_SETTLE",
      postings: [
        { accountId: inFlight.id, amount: debited.negated() },
        { accountId: world.id, amount: item.amount },
        { accountId: fees.id, amount: item.fee },
      ].filter((p) => !new Decimal(p.amount).isZero()),
    });
  } else {
    const wallet = await findWallet(tx, batch.merchant_id, isSandbox, "XOF", "MOMO");
    await postJournal(tx, {
      ...base,
      reference: `bulk:${item.id}:${item.attempt}:release`,
      kind: "BULK_ITEM_RELEASE",
      postings: [
        { accountId: inFlight.id, amount: debited.negated() },
        { accountId: wallet!.id, amount: debited },
      ],
    });
  }
  await store.finishItem(tx, item.id, {
    status: outcome.status,
    txHash: outcome.providerRef ?? null,
    failureReason: outcome.status === "FAILED" ? outcome.reason ?? "PROVIDER_FAILURE" : null,
  }, ctx.clock.now());
  tx.afterCommit(() => ctx.queue.enqueue({ type: "bulk.advance", batchId: batch.id }));
});
