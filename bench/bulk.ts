// `deno task bench bulk`: items per second for a 1,000-item USDT batch on the devnet, from
// POST /v1/bulk-payments/:id/execute until the batch is COMPLETED (one debit, dispatch into payout rows,
// every transfer signed, stored and broadcast by the payout sender, 20 confirmations followed by the
// scanner, items settled, batch closed), beside the same number of single payouts through
// POST /v1/payout (accepted one request each, then the same sender, chain and scanner). Each side runs
// on a fresh gateway and database: cold, as a merchant's first batch meets it.
import { findSystemAccount, findWallet } from "../db/ledger.ts";
import { advanceBatch } from "../domain/bulk/run.ts";
import { scanChain } from "../domain/payins/chain_scanner.ts";
import { postJournal } from "../domain/ledger.ts";
import { updateMerchantSettings } from "../domain/merchants/mod.ts";
import { sendOutbound } from "../domain/money_out/send.ts";
import { hotWallet } from "../domain/treasury/hot_wallet.ts";
import { addWhitelistEntries } from "../domain/whitelist/mod.ts";
import { toBase58Address } from "../rails/tron/address.ts";
import { type BenchGateway, startBenchGateway } from "./gateway.ts";
import { type BenchOptions, benchTargets, fmt, formatTable, perSecond, runPool } from "./lib.ts";

const CONCURRENCY = 10;

function randomAddress(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  return toBase58Address("41" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""));
}

async function prepare(gw: BenchGateway, n: number): Promise<string[]> {
  const { deps } = gw;
  const merchantId = gw.merchant.merchantId;
  await updateMerchantSettings(deps, merchantId, {
    rateLimits: { "POST /v1/payout": 1_000_000, default: 1_000_000 },
  });
  const hot = hotWallet(deps.config, false);
  gw.devnet.fund(hot.address, { trx: 1_000_000_000_000n, usdt: 1_000_000_000_000n });
  gw.devnet.mine(1);
  const world = await findSystemAccount(deps.db, "WORLD", false, "TRC20");
  const wallet = (await findWallet(deps.db, merchantId, false, "USDT_TRC20", "TRC20"))!;
  await postJournal(deps.db, {
    reference: "bench:credit",
    kind: "BENCH_CREDIT",
    merchantId,
    isSandbox: false,
    postings: [{ accountId: world.id, amount: "-10000000" }, { accountId: wallet.id, amount: "10000000" }],
  });
  const addresses = Array.from({ length: n }, randomAddress);
  for (let i = 0; i < n; i += 500) {
    await addWhitelistEntries(deps, {
      merchantId,
      isSandbox: false,
      addresses: addresses.slice(i, i + 500).map((address) => ({ address })),
      usageContexts: ["PAYOUT"],
      via: "API_KEY",
    });
  }
  return addresses;
}

async function call(gw: BenchGateway, method: string, path: string, body?: unknown, extra = {}) {
  const res = await gw.app.request(path, {
    method,
    headers: {
      "x-api-key": gw.merchant.liveSecret,
      "content-type": "application/json",
      "idempotency-key": crypto.randomUUID(),
      ...extra,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/**
 * Sends every payout (the sender's work), a block mined after every hundred as a chain would (a
 * transaction references a recent block and expires a minute later), then 20 more blocks for the scanner.
 */
async function sendAndConfirm(gw: BenchGateway, ids: string[]): Promise<void> {
  for (let from = 0; from < ids.length; from += 100) {
    const chunk = ids.slice(from, from + 100);
    gw.devnet.mine(1); // a fresh reference block: a chain never stands still while requests come in
    await runPool(chunk.length, CONCURRENCY, async (i) => {
      const outcome = await sendOutbound(gw.deps, chunk[i]);
      if (outcome !== "sent") throw new Error(`payout ${chunk[i]}: ${outcome}`);
    });
  }
  gw.devnet.mine(gw.deps.config.tron.payoutConfirmations);
  await scanChain(gw.deps);
}

async function bulkRun(gw: BenchGateway, addresses: string[]): Promise<number> {
  const batch = await call(gw, "POST", "/v1/bulk-payments", { rail: "USDT_TRC20", label: "bench" });
  await call(gw, "POST", `/v1/bulk-payments/${batch.id}/items`, {
    items: addresses.map((walletAddress) => ({ walletAddress, amount: "5" })),
  });
  await call(gw, "POST", `/v1/bulk-payments/${batch.id}/validate`);
  const start = performance.now();
  await call(gw, "POST", `/v1/bulk-payments/${batch.id}/execute`);
  await advanceBatch(gw.deps, batch.id);
  const ids = (await gw.deps.db.query<{ id: string }>(
    "SELECT payment_id AS id FROM bulk_items WHERE batch_id = $1 ORDER BY line",
    [batch.id],
  )).map((r) => r.id);
  await sendAndConfirm(gw, ids);
  const status = await advanceBatch(gw.deps, batch.id);
  const ms = performance.now() - start;
  if (status !== "COMPLETED") throw new Error(`batch ended ${status}`);
  return ms;
}

async function singleRun(gw: BenchGateway, addresses: string[]): Promise<number> {
  const start = performance.now();
  const ids: string[] = [];
  await runPool(addresses.length, CONCURRENCY, async (i) => {
    const payout = await call(gw, "POST", "/v1/payout", { amount: "5", destinationAddress: addresses[i] });
    ids.push(payout.transactionId);
  });
  await sendAndConfirm(gw, ids);
  const ms = performance.now() - start;
  const done = await gw.deps.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM outbound_transfers WHERE status = 'CONFIRMED'",
  );
  if (done[0].n !== addresses.length) throw new Error(`${done[0].n} of ${addresses.length} confirmed`);
  return ms;
}

export async function runBulkBench(options: BenchOptions): Promise<void> {
  const n = options.smoke ? 20 : 1000;
  const rows: string[][] = [];
  for (const open of await benchTargets(options)) {
    const results: Record<string, number> = {};
    let label = "";
    for (const [name, run] of [["bulk", bulkRun], ["single", singleRun]] as const) {
      const target = await open();
      label = target.label;
      const gw = await startBenchGateway(target.db);
      try {
        const addresses = await prepare(gw, n);
        results[name] = perSecond(n, await run(gw, addresses));
      } finally {
        await gw.close();
        await target.cleanup();
      }
    }
    rows.push([
      label,
      fmt(results.bulk),
      fmt(results.single),
      fmt(results.bulk / results.single, 2),
    ]);
  }
  console.log(
    `\n${n} USDT payments, execute to COMPLETED (bulk) vs ${n} POST /v1/payout to CONFIRMED (single), cold, ` +
      `sender ${CONCURRENCY} at a time${options.smoke ? " (smoke: figures mean nothing)" : ""}\n`,
  );
  console.log(formatTable(["database", "bulk items/s", "single payouts/s", "x single"], rows));
}
