// Bulk payment batches: create, add items (JSON or file), validate (fee preview and balance check,
// nothing reserved), execute (ONE debit of every item's amount and fee, under the wallet's row lock, in
// the idempotency transaction), retry (one debit of exactly what failed items got back), cancel (before
// execution, no balance impact). Items are then paid one by one by domain/bulk/run.ts.
import * as store from "../../db/bulk.ts";
import { findSystemAccount, findWallet } from "../../db/ledger.ts";
import type { Db } from "../../db/mod.ts";
import type { Caller } from "../auth.ts";
import type { Deps } from "../deps.ts";
import { AppError, AWAITING_SOLIDIFICATION } from "../errors.ts";
import { newId } from "../ids.ts";
import { postJournal } from "../ledger.ts";
import { Decimal, formatAmount } from "../money.ts";
import { spendableUsdt, unspendableUsdt } from "../money_out/request.ts";
import {
  assertMaySend,
  assertWithinLimits,
  consumeBatchCaps,
  recipientsToReview,
  reviewReason,
} from "./controls.ts";
import { readUpload } from "./files.ts";
import {
  type BulkRail,
  checkItems,
  DEFAULT_BULK_RAIL,
  MAX_ITEMS_PER_BATCH,
  RAIL_CURRENCY,
  type RawItem,
} from "./items.ts";
import { releaseHeldBatch } from "./review.ts";
import { assertBatchMove } from "./states.ts";
// The mobile money finisher must be registered wherever batches are executed or disbursements finish.
import "./momo.ts";
import { assertLiveAllowed } from "../merchants/live_gate.ts";

type BulkDeps = Pick<Deps, "db" | "queue" | "clock" | "config" | "log">;
type Scope = { merchantId: string; isSandbox: boolean };

const WALLET_RAIL = { USDT_TRC20: "TRC20", MOBILE_MONEY: "MOMO" } as const;

function scopeOf(caller: Caller): Scope {
  return { merchantId: caller.merchantId, isSandbox: caller.isSandbox };
}

export async function getBatch(deps: Pick<Deps, "db">, caller: Caller, id: string): Promise<store.BatchRow> {
  const batch = await store.findBatch(deps.db, scopeOf(caller), id);
  if (!batch) throw new AppError("NOT_FOUND", "No bulk payment with this id");
  return batch;
}

export async function createBatch(
  deps: BulkDeps,
  caller: Caller,
  input: { rail?: BulkRail; label?: string },
): Promise<store.BatchRow> {
  const now = deps.clock.now();
  const rail = input.rail ?? DEFAULT_BULK_RAIL;
  return await store.insertBatch(deps.db, {
    ...scopeOf(caller),
    id: newId("blk", now.getTime()),
    rail,
    currency: RAIL_CURRENCY[rail],
    label: input.label ?? null,
    now,
  });
}

function assertDraft(batch: store.BatchRow): void {
  if (batch.status !== "DRAFT") {
    throw new AppError(
      "INVALID_TRANSACTION_STATUS",
      `Batch is ${batch.status}; items can be added only to a DRAFT`,
    );
  }
}

function assertRoom(batch: store.BatchRow, adding: number): void {
  if (batch.item_count + adding > MAX_ITEMS_PER_BATCH) {
    throw new AppError(
      "LIMIT_EXCEEDED_BULK_BATCH",
      `A batch holds at most ${MAX_ITEMS_PER_BATCH} items; it has ${batch.item_count}, ${adding} more were sent`,
    );
  }
}

/** Checks every item, then stores them all or none, the batch locked and still a DRAFT with room. */
async function storeItems(
  deps: BulkDeps,
  caller: Caller,
  batch: store.BatchRow,
  raw: RawItem[],
): Promise<store.BatchRow> {
  const checked = await checkItems(deps, caller, batch.rail, raw);
  if (checked.length === 0) {
    throw new AppError("IMPORT_VALIDATION_FAILED", "No items: the file has a header but no rows", {
      details: [{ field: "file", reason: "no rows after the header" }],
    });
  }
  return await deps.db.tx(async (tx) => {
    const locked = (await store.lockBatch(tx, batch.id))!;
    assertDraft(locked);
    assertRoom(locked, checked.length);
    const now = deps.clock.now();
    await store.appendItems(
      tx,
      batch.id,
      checked.map((item, i) => ({
        ...item,
        id: newId("bli", now.getTime()),
        line: locked.item_count + i + 1,
      })),
      now,
    );
    return (await store.findBatch(tx, scopeOf(caller), batch.id))!;
  });
}

export type ItemInput = { walletAddress: string; amount: string; recipientName?: string; reference?: string };

export async function addItems(
  deps: BulkDeps,
  caller: Caller,
  id: string,
  items: ItemInput[],
): Promise<store.BatchRow> {
  const batch = await getBatch(deps, caller, id);
  if (items.length === 0) {
    throw new AppError("VALIDATION_ERROR", "items: at least one item", {
      details: [{ field: "items", reason: "at least one item" }],
    });
  }
  assertDraft(batch);
  assertRoom(batch, items.length);
  const raw: RawItem[] = items.map((item, i) => ({ ...item, field: (name) => `items.${i}.${name}` }));
  return await storeItems(deps, caller, batch, raw);
}

export async function importItems(
  deps: BulkDeps,
  caller: Caller,
  id: string,
  file: Uint8Array,
): Promise<store.BatchRow> {
  const batch = await getBatch(deps, caller, id);
  assertDraft(batch);
  const raw = await readUpload(file, MAX_ITEMS_PER_BATCH - batch.item_count);
  return await storeItems(deps, caller, batch, raw);
}

/** The merchant's wallet of the batch's rail. */
async function walletOf(db: Db, batch: store.BatchRow) {
  const wallet = await findWallet(
    db,
    batch.merchant_id,
    batch.is_sandbox,
    batch.currency,
    WALLET_RAIL[batch.rail],
  );
  if (!wallet) throw new AppError("WALLET_NOT_FOUND", `The merchant has no ${batch.currency} wallet`);
  return wallet;
}

/** What the merchant may spend on this rail now: USDT less unsolidified credits; XOF its balance. */
async function available(db: Db, batch: store.BatchRow): Promise<Decimal> {
  const wallet = await walletOf(db, batch);
  if (batch.rail === "USDT_TRC20") {
    return await spendableUsdt(
      db,
      { merchantId: batch.merchant_id, isSandbox: batch.is_sandbox },
      wallet.balance,
    );
  }
  return new Decimal(wallet.balance);
}

export type BalanceCheck =
  | { sufficient: boolean; required: string; available: string }
  | { sandbox: true; skipped: true; required: string };

/** DRAFT (or VALIDATED again) -> VALIDATED: the fee preview and balance check; nothing is reserved. */
export async function validateBatch(
  deps: BulkDeps,
  caller: Caller,
  id: string,
): Promise<{ batch: store.BatchRow; totalFee: string; balanceCheck: BalanceCheck }> {
  const batch = await getBatch(deps, caller, id);
  assertBatchMove(batch.status, "VALIDATED", "validated");
  if (batch.item_count === 0) throw new AppError("BAD_REQUEST", "The batch has no items to validate");
  await assertWithinLimits(deps, batch, await pendingItems(deps.db, batch.id, ["PENDING"]));
  const totals = await store.itemTotals(deps.db, batch.id, ["PENDING"]);
  const currency = batch.currency;
  const required = new Decimal(totals.amount).plus(totals.fee);
  let balanceCheck: BalanceCheck;
  if (batch.is_sandbox) {
    balanceCheck = { sandbox: true, skipped: true, required: formatAmount(required, currency) };
  } else {
    const have = await available(deps.db, batch);
    if (have.lessThan(required)) {
      throw new AppError(
        "INSUFFICIENT_BALANCE",
        `The batch needs ${formatAmount(required, currency)} ${currency} (amounts and fees); ` +
          `${formatAmount(have, currency)} is available`,
      );
    }
    balanceCheck = {
      sufficient: true,
      required: formatAmount(required, currency),
      available: formatAmount(have, currency),
    };
  }
  const moved = await deps.db.tx(async (tx) => {
    const locked = (await store.lockBatch(tx, batch.id))!;
    assertBatchMove(locked.status, "VALIDATED", "validated");
    return await store.moveBatch(tx, batch.id, locked.status, "VALIDATED", {
      validated_at: deps.clock.now(),
      total_amount: totals.amount,
      total_fee: totals.fee,
    }, deps.clock.now());
  });
  return { batch: moved!, totalFee: formatAmount(totals.fee, currency), balanceCheck };
}

/**
 * Debits `amount` (items' amounts and fees) from the wallet to IN_FLIGHT under the reference `reference`,
 * then runs `then` in the same transaction. The wallet row's lock serializes it with every other movement
 * of the merchant; a short wallet is INSUFFICIENT_BALANCE and nothing happens.
 */
async function debitBatch(
  tx: Db,
  batch: store.BatchRow,
  reference: string,
  amount: Decimal,
  then: (jtx: Db) => Promise<void>,
): Promise<void> {
  const wallet = await walletOf(tx, batch);
  const inFlight = await findSystemAccount(tx, "IN_FLIGHT", batch.is_sandbox, WALLET_RAIL[batch.rail]);
  const scope = { merchantId: batch.merchant_id, isSandbox: batch.is_sandbox };
  const result = await postJournal(tx, {
    reference,
    kind: "BULK_DEBIT",
    merchantId: batch.merchant_id,
    isSandbox: batch.is_sandbox,
    postings: [
      { accountId: wallet.id, amount: amount.negated() },
      { accountId: inFlight.id, amount },
    ],
    metadata: { bulkPaymentId: batch.id },
  }, async (jtx) => {
    if (batch.rail === "USDT_TRC20") {
      const left = new Decimal((await walletOf(jtx, batch)).balance);
      if (left.lessThan(await unspendableUsdt(jtx, scope))) {
        throw new AppError(
          "INSUFFICIENT_BALANCE",
          "Part of the balance is not spendable yet (awaiting solidification)",
          { reason: AWAITING_SOLIDIFICATION },
        );
      }
    }
    await then(jtx);
  });
  if (!result.booked) throw new AppError("CONFLICT", "This batch was already debited");
}

/** Every USDT destination still whitelisted for PAYOUT (contexts may have changed since the import). */
async function assertStillWhitelisted(db: Db, batch: store.BatchRow, statuses: string[]): Promise<void> {
  if (batch.rail !== "USDT_TRC20") return;
  const items = (await store.listItems(db, batch.id)).filter((i) => statuses.includes(i.status));
  const addresses = [...new Set(items.map((i) => i.wallet_address))];
  const listed = await store.payoutWhitelisted(db, {
    merchantId: batch.merchant_id,
    isSandbox: batch.is_sandbox,
  }, addresses);
  const missing = items.filter((i) => !listed.has(i.wallet_address));
  if (missing.length > 0) {
    throw new AppError(
      "ADDRESS_NOT_WHITELISTED",
      `Item ${missing[0].line} is no longer whitelisted for PAYOUT`,
      {
        details: missing.slice(0, 100).map((i) => ({
          field: `items.${i.line}.walletAddress`,
          reason: "not whitelisted for PAYOUT",
        })),
      },
    );
  }
}

async function pendingItems(db: Db, batchId: string, statuses: string[]): Promise<store.ItemRow[]> {
  return (await store.listItems(db, batchId)).filter((i) => statuses.includes(i.status));
}

/**
 * VALIDATED -> PROCESSING: one journal `bulk:<id>:execute` moves every item's amount and fee to
 * IN_FLIGHT, items are queued, and the run is enqueued after commit. A mobile money batch paying any
 * number that is not a registered fiat destination past its cooldown is debited the same way but goes to
 * PENDING_REVIEW instead, its items left PENDING until an operator decides (domain/bulk/review.ts).
 * Call with the idempotency transaction as deps.db; 50 concurrent calls debit once (the batch row lock,
 * then its state).
 */
export async function executeBatch(deps: BulkDeps, caller: Caller, id: string): Promise<store.BatchRow> {
  assertLiveAllowed(caller, deps.clock.now());
  const batch = await getBatch(deps, caller, id);
  assertMaySend(caller, batch);
  return await deps.db.tx(async (tx) => {
    const locked = (await store.lockBatch(tx, batch.id))!;
    assertBatchMove(locked.status, "PROCESSING", "executed");
    await assertStillWhitelisted(tx, locked, ["PENDING"]);
    const items = await pendingItems(tx, batch.id, ["PENDING"]);
    await assertWithinLimits({ ...deps, db: tx }, locked, items);
    const needs = await recipientsToReview({ db: tx, clock: deps.clock }, locked, items);
    const to = needs.length > 0 ? "PENDING_REVIEW" : "PROCESSING";
    const totals = await store.itemTotals(tx, batch.id, ["PENDING"]);
    const debit = new Decimal(totals.amount).plus(totals.fee);
    let moved: store.BatchRow | undefined;
    await debitBatch(tx, locked, `bulk:${batch.id}:execute`, debit, async (jtx) => {
      // The plan's money-out caps, for the items' amounts, under the wallet's lock (undone with the debit).
      await consumeBatchCaps({ ...deps, db: jtx }, locked, totals.amount);
      const now = deps.clock.now();
      if (to === "PROCESSING") await store.moveItems(jtx, batch.id, "PENDING", "QUEUED", now, 1);
      moved = await store.moveBatch(jtx, batch.id, locked.status, to, {
        executed_at: now,
        attempt: 1,
        total_amount: totals.amount,
        total_fee: totals.fee,
        ...(to === "PENDING_REVIEW" ? { review_reason: reviewReason(needs) } : {}),
      }, now);
    });
    if (to === "PROCESSING") {
      tx.afterCommit(() => deps.queue.enqueue({ type: "bulk.advance", batchId: batch.id }));
    }
    deps.log.info("money state change", {
      kind: "BULK",
      id: batch.id,
      merchantId: batch.merchant_id,
      mode: batch.is_sandbox ? "sandbox" : "live",
      to,
      amount: debit.toFixed(),
      ...(needs.length > 0 ? { recipientsToReview: needs.length } : {}),
    });
    return moved!;
  });
}

/**
 * PARTIALLY_COMPLETED -> PROCESSING: failed items are queued again under a new attempt, and what their
 * failures released is debited again, once (journal `bulk:<id>:retry:<attempt>`).
 */
export async function retryBatch(deps: BulkDeps, caller: Caller, id: string): Promise<store.BatchRow> {
  assertLiveAllowed(caller, deps.clock.now());
  const batch = await getBatch(deps, caller, id);
  assertMaySend(caller, batch);
  return await deps.db.tx(async (tx) => {
    const locked = (await store.lockBatch(tx, batch.id))!;
    assertBatchMove(locked.status, "PROCESSING", "retried");
    await assertStillWhitelisted(tx, locked, ["FAILED"]);
    // Its recipients were cleared at execution (registered, or approved by an operator); limits again.
    await assertWithinLimits({ ...deps, db: tx }, locked, await pendingItems(tx, batch.id, ["FAILED"]));
    const failed = await store.itemTotals(tx, batch.id, ["FAILED"]);
    const attempt = locked.attempt + 1;
    let moved: store.BatchRow | undefined;
    await debitBatch(
      tx,
      locked,
      `bulk:${batch.id}:retry:${attempt}`,
      new Decimal(failed.amount).plus(failed.fee),
      async (jtx) => {
        const now = deps.clock.now();
        await store.moveItems(jtx, batch.id, "FAILED", "QUEUED", now, attempt);
        moved = await store.moveBatch(jtx, batch.id, locked.status, "PROCESSING", { attempt }, now);
      },
    );
    tx.afterCommit(() => deps.queue.enqueue({ type: "bulk.advance", batchId: batch.id }));
    return moved!;
  });
}

/**
 * DRAFT or VALIDATED -> CANCELLED: nothing was reserved, so nothing moves. PENDING_REVIEW -> CANCELLED:
 * the merchant withdraws it before the operator decides, and its debit returns to the wallet at once.
 */
export async function cancelBatch(deps: BulkDeps, caller: Caller, id: string): Promise<store.BatchRow> {
  const batch = await getBatch(deps, caller, id);
  return await deps.db.tx(async (tx) => {
    const locked = (await store.lockBatch(tx, batch.id))!;
    if (!["DRAFT", "VALIDATED", "PENDING_REVIEW"].includes(locked.status)) {
      throw new AppError(
        "CANNOT_CANCEL",
        `Batch is ${locked.status}; only a DRAFT, VALIDATED or PENDING_REVIEW batch can be cancelled`,
      );
    }
    const now = deps.clock.now();
    if (locked.status === "PENDING_REVIEW") {
      return await releaseHeldBatch({ ...deps, db: tx }, locked, "CANCELLED", { cancelled_at: now });
    }
    await store.moveItems(tx, batch.id, "PENDING", "CANCELLED", now);
    return (await store.moveBatch(tx, batch.id, locked.status, "CANCELLED", { cancelled_at: now }, now))!;
  });
}
