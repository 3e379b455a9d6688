// The sandbox reset: wipes one merchant's sandbox transactions and balances, never a live row.
import * as sandboxDb from "../../db/sandbox.ts";
import { pgErrorCode } from "../../db/mod.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { Decimal } from "../money.ts";

/**
 * Tables whose rows belong to one merchant's sandbox: each has `merchant_id` and `is_sandbox` columns,
 * or (`via`) points at a parent that has them. A new sandbox-owned table is added here and nowhere else.
 * Order is deletion order: a table that references another comes before it. They are all emptied before
 * the ledger, so a table pointing at journals (conversions) is fine. Not listed on purpose, as settings
 * rather than transactions: webhook endpoints, keys, whitelist entries, fiat destinations; and deposit
 * addresses, never reused even in sandbox. Paylinks, their products, promo codes and templates go: their
 * stock, use and order counters were made by the transactions being wiped.
 */
export const SANDBOX_OWNED_TABLES = [
  // Money out (migrations 012, 016, 018): decisions and signed transactions reference payouts and
  // withdrawals, which reference bulk items; disbursements name their owner by id only.
  { table: "review_decisions", label: "reviewDecisions", via: ["outbound_id", "outbound_transfers"] },
  { table: "chain_outgoing", label: "chainOutgoing", via: ["outbound_id", "outbound_transfers"] },
  { table: "fiat_disbursements", label: "fiatDisbursements" },
  { table: "outbound_transfers", label: "payoutsAndWithdrawals" },
  { table: "bulk_items", label: "bulkItems", via: ["batch_id", "bulk_batches"] },
  { table: "bulk_batches", label: "bulkBatches" },
  // Conversions (migration 017) reference their journal.
  { table: "conversions", label: "conversions" },
  // Subscriptions (migration 021): renewals reference pay-ins and subscriptions, which reference orders.
  { table: "subscription_renewals", label: "subscriptionRenewals" },
  { table: "subscriptions", label: "subscriptions" },
  { table: "mail_outbox", label: "mailOutbox" },
  // Paylinks (migration 019): orders reference pay-ins and products, so they go first.
  { table: "paylink_order_items", label: "paylinkOrderItems" },
  { table: "paylink_orders", label: "paylinkOrders" },
  { table: "paylink_promo_codes", label: "paylinkPromoCodes" },
  { table: "paylink_products", label: "paylinkProducts" },
  { table: "paylinks", label: "paylinks" },
  { table: "paylink_templates", label: "paylinkTemplates" },
  { table: "webhook_deliveries", label: "webhookDeliveries" },
  { table: "events", label: "events" },
  // Before payins, which they reference. The scanner skips a transfer whose pay-in is gone.
  { table: "chain_transfers", label: "chainTransfers" },
  { table: "payins", label: "payins" },
  // Export jobs (migration 027) and their files: sandbox exports name sandbox transactions.
  { table: "export_chunks", label: "exportChunks", via: ["job_id", "export_jobs"] },
  { table: "export_jobs", label: "exportJobs" },
  // Sandbox answers kept under Idempotency-Keys: they may name pay-ins that are gone now. The same keys'
  // live records are another mode's rows and stay.
  { table: "idempotency_keys", label: "idempotencyKeys" },
] as const satisfies ReadonlyArray<{ table: string; label: string; via?: readonly [string, string] }>;

type OwnedLabel = typeof SANDBOX_OWNED_TABLES[number]["label"];

export type SandboxResetResult = {
  message: string;
  deleted: { journals: number; entries: number } & Record<OwnedLabel, number>;
};

export async function resetSandbox(
  deps: Pick<Deps, "db">,
  input: { merchantId: string; isSandbox: boolean },
): Promise<SandboxResetResult> {
  // A live key is refused with 403 FORBIDDEN, cause LIVE_KEY_SANDBOX_REQUEST: it authenticated fine but
  // may never reach sandbox data, and the cause is the specification's name for a live key on a sandbox call.
  if (!input.isSandbox) {
    throw new AppError(
      "FORBIDDEN",
      "Sandbox reset needs a sandbox key (svc_test_sk_...); live data is never reset",
      {
        reason: "LIVE_KEY_SANDBOX_REQUEST",
      },
    );
  }
  for (let attempt = 1;; attempt++) {
    try {
      return await wipeSandbox(deps, input.merchantId);
    } catch (err) {
      // A sandbox payout or batch finishing at this moment may hold its row and wait for an account the
      // reset holds; Postgres then aborts one of the two. Nothing was deleted, so the reset runs again.
      if (pgErrorCode(err) !== PG_DEADLOCK || attempt >= RESET_ATTEMPTS) throw err;
    }
  }
}

const PG_DEADLOCK = "40P01";
const RESET_ATTEMPTS = 3;

/** Everything in one transaction: a reset is seen whole or not at all. */
async function wipeSandbox(deps: Pick<Deps, "db">, merchantId: string): Promise<SandboxResetResult> {
  return await deps.db.tx(async (tx) => {
    // Rows first, then accounts: the order in which a payout's send or finish takes its locks.
    await sandboxDb.lockSandboxMoneyOut(tx, merchantId);
    await sandboxDb.lockSandboxAccounts(tx, merchantId);
    const owned = {} as Record<OwnedLabel, number>;
    for (const entry of SANDBOX_OWNED_TABLES) {
      owned[entry.label] = "via" in entry
        ? await sandboxDb.deleteSandboxChildRows(tx, entry.table, entry.via, merchantId)
        : await sandboxDb.deleteSandboxRows(tx, entry.table, merchantId);
    }
    const ledger = await wipeSandboxLedger(tx, merchantId);
    return {
      message: "Sandbox transactions and balances deleted",
      deleted: { ...ledger, ...owned },
    };
  });
}

/**
 * Deletes the merchant's sandbox journals and takes their entries back out of every account they moved:
 * its wallets fall to zero and the sandbox WORLD and FEES accounts shed exactly this merchant's share, so
 * every cached balance still equals the sum of its entries. Runs under lockSandboxAccounts, so no sandbox
 * journal on these accounts can commit between reading the journals and deleting them.
 */
async function wipeSandboxLedger(
  tx: Deps["db"],
  merchantId: string,
): Promise<{ journals: number; entries: number }> {
  const journalIds = await sandboxDb.listSandboxJournalIds(tx, merchantId);
  if (journalIds.length === 0) return { journals: 0, entries: 0 };
  const totals = await sandboxDb.sumEntriesByAccount(tx, journalIds);
  let entries = 0;
  for (const t of totals) {
    // postJournal never mixes modes, so this cannot happen; if it ever did, refuse rather than guess.
    if (!t.is_sandbox) throw new Error(`sandbox journal touches live account ${t.account_id}`);
    entries += t.entries;
    if (!new Decimal(t.total).isZero()) {
      await sandboxDb.subtractFromSandboxBalance(tx, t.account_id, t.total);
    }
  }
  const journals = await sandboxDb.deleteSandboxJournals(tx, journalIds);
  return { journals, entries };
}
