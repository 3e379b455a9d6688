// A USDT bulk batch on the devnet, end to end: 200 items from an XLSX file (a first file with bad rows is
// refused whole), executed with one debit, each item paid exactly once by the payout broadcaster, some
// recipients failing (the node refuses their transfers) so the batch ends PARTIALLY_COMPLETED, then a
// retry re-debits exactly what those failures released and the batch ends COMPLETED, the ledger exact to
// the unit. And a process killed in the middle of the run pays no item twice.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { manualClock } from "../../domain/clock.ts";
import type { Deps } from "../../domain/deps.ts";
import { advanceBatch } from "../../domain/bulk/run.ts";
import { Decimal } from "../../domain/money.ts";
import { hotWallet } from "../../domain/treasury/hot_wallet.ts";
import { handleBulkSweep } from "../../jobs/bulk.ts";
import { handleOutboundSweep } from "../../jobs/money_out.ts";
import type { Db } from "../../db/mod.ts";
import { toHexAddress } from "../../rails/tron/address.ts";
import type { TronClient } from "../../rails/tron/client.ts";
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { batchOf, createBatch, upload, whitelistMany, XLSX, xlsxOf } from "../bulk_helpers.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { creditUsdt, idem, inFlight, randomTronAddress, usdtBalance } from "../money_out_helpers.ts";

const USDT = 1_000_000n;
const HEADER = ["walletAddress", "amount", "recipientName", "reference"];

async function setup(n: number) {
  const clock = manualClock(new Date());
  // The chain keeps the gateway's time: a transfer expires when the chain's head passes its expiration.
  const gw = await startTestGateway({ clock, devnetNow: () => clock.now().getTime() });
  const m = await gw.createMerchant("Bulk Chain Shop");
  await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { rateLimits: { default: 100_000 } });
  const key = m.keys.liveSecret;
  await creditUsdt(gw, m.merchantId, false, "100000");
  const hot = hotWallet(gw.deps.config, false);
  gw.devnet.fund(hot.address, { trx: 100_000n * USDT, usdt: 100_000n * USDT });
  gw.devnet.mine(1);
  const addresses = await whitelistMany(gw, key, n);
  // Amounts differ per item (5.000001, 5.010002, ...) so a wrong item paid shows at once.
  const amounts = addresses.map((_, i) =>
    new Decimal(5).plus(new Decimal(i).times("0.01")).plus(new Decimal(i + 1).times("0.000001"))
  );
  const mine = async (blocks: number) => {
    gw.devnet.mine(blocks);
    clock.advance(blocks * 3000);
    await scanChain(gw.deps);
  };
  const received = (address: string) =>
    gw.deps.tron.getUsdtBalance(gw.deps.config.tron.usdtContract, address);
  return { gw, m, key, clock, addresses, amounts, mine, received };
}

/** A node that refuses (CONTRACT_VALIDATE_ERROR) every transfer to the addresses in `refused`. */
function refusingNode(gw: TestGateway, refused: Set<string>): Deps {
  const hex = new Set([...refused].map((a) => toHexAddress(a).slice(2).toLowerCase()));
  const tron: TronClient = {
    ...gw.deps.tron,
    broadcastTransaction(signed) {
      // deno-lint-ignore no-explicit-any
      const data: string = (signed as any).raw_data.contract[0].parameter.value.data;
      if (hex.has(data.slice(8 + 24, 8 + 64).toLowerCase())) {
        return Promise.resolve({ result: false, code: "CONTRACT_VALIDATE_ERROR" });
      }
      return gw.deps.tron.broadcastTransaction(signed);
    },
  };
  return { ...gw.deps, tron };
}

async function importAndExecute(ctx: Awaited<ReturnType<typeof setup>>) {
  const { gw, key, addresses, amounts } = ctx;
  const id = await createBatch(gw, key, "USDT_TRC20");
  const rows = addresses.map((a, i) => [a, amounts[i].toNumber(), `Worker ${i + 1}`, `nov-${i + 1}`]);
  // A first file with three bad rows is refused whole, each row named.
  const bad = [...rows];
  bad[9] = ["TnotAnAddress", 10, "x", "y"];
  bad[19] = [randomTronAddress(), 10, "x", "y"];
  bad[29] = [addresses[29], 4, "x", "y"];
  const refused = await upload(gw, key, id, await xlsxOf([HEADER, ...bad]), "november.xlsx", XLSX);
  assertEquals(refused.json.error.code, "IMPORT_VALIDATION_FAILED");
  assertEquals(
    refused.json.error.details.map((d: { line: number }) => d.line).sort((a: number, b: number) => a - b),
    [11, 21, 31],
  );
  assertEquals((await batchOf(gw, key, id)).itemCount, 0);
  const imported = await upload(gw, key, id, await xlsxOf([HEADER, ...rows]), "november.xlsx", XLSX);
  assertEquals([imported.status, imported.json.data.itemCount], [200, addresses.length], imported.text);
  const valid = await gw.request("POST", `/v1/bulk-payments/${id}/validate`, { key });
  assertEquals(valid.status, 200, valid.text);
  const total = amounts.reduce((s, a) => s.plus(a), new Decimal(0));
  assertEquals(valid.json.data.totalFee, new Decimal(addresses.length).toFixed(6));
  assertEquals(valid.json.data.balanceCheck.required, total.plus(addresses.length).toFixed(6));
  const exec = await gw.request("POST", `/v1/bulk-payments/${id}/execute`, { key, headers: idem() });
  assertEquals([exec.status, exec.json.data.status], [202, "PROCESSING"], exec.text);
  return { id, total };
}

Deno.test("USDT batch of 200 from XLSX: failing recipients, PARTIALLY_COMPLETED, retry, COMPLETED, ledger exact", async () => {
  const ctx = await setup(200);
  const { gw, m, key, clock, addresses, amounts, mine, received } = ctx;
  try {
    const { id, total } = await importAndExecute(ctx);
    const fee = new Decimal(addresses.length); // 1.00 per item
    assertEquals(
      await usdtBalance(gw, m.merchantId, false),
      new Decimal(100000).minus(total).minus(fee).toFixed(6),
    );
    assertEquals(await inFlight(gw, false), total.plus(fee).toFixed(6));

    const failing = new Set([addresses[3], addresses[77], addresses[150], addresses[199]]);
    const node = refusingNode(gw, failing);
    assertEquals(await advanceBatch(node, id), "PROCESSING");
    const dispatched = await batchOf(gw, key, id);
    assertEquals(dispatched.counts.processing, 200);
    for (let i = 0; i < 6; i++) await handleOutboundSweep(node); // the refused ones count their refusals
    await mine(20);
    clock.advance(10 * 60_000); // the refused transactions expire off chain...
    gw.devnet.mine(1); // ...once a block is past their expiration
    await handleOutboundSweep(node); // ...and their items fail, each refunded once
    assertEquals(await advanceBatch(node, id), "PARTIALLY_COMPLETED");

    const partial = await batchOf(gw, key, id);
    assertEquals([partial.counts.succeeded, partial.counts.failed], [196, 4]);
    const failed = partial.items.filter((i: { status: string }) => i.status === "FAILED");
    assertEquals(failed.map((i: { walletAddress: string }) => i.walletAddress).sort(), [...failing].sort());
    assertEquals(failed[0].failureReason, "BROADCAST_REJECTED");
    const failedTotal = amounts.filter((_, i) => failing.has(addresses[i])).reduce(
      (s, a) => s.plus(a),
      new Decimal(0),
    );
    const paidFirst = total.minus(failedTotal).plus(196);
    assertEquals(await usdtBalance(gw, m.merchantId, false), new Decimal(100000).minus(paidFirst).toFixed(6));
    assertEquals(await inFlight(gw, false), "0.000000");

    // Retry: re-debits exactly what the four failures released, once.
    const retryKey = idem();
    const retry = await gw.request("POST", `/v1/bulk-payments/${id}/retry`, { key, headers: retryKey });
    assertEquals([retry.status, retry.json.data.status, retry.json.data.attempt], [202, "PROCESSING", 2]);
    const replay = await gw.request("POST", `/v1/bulk-payments/${id}/retry`, { key, headers: retryKey });
    assertEquals([replay.status, replay.headers.get("idempotent-replayed")], [202, "true"]);
    const twice = await gw.request("POST", `/v1/bulk-payments/${id}/retry`, { key, headers: idem() });
    assertEquals([twice.status, twice.json.error.code], [400, "INVALID_TRANSACTION_STATUS"]);
    assertEquals(await inFlight(gw, false), failedTotal.plus(4).toFixed(6));

    assertEquals(await advanceBatch(gw.deps, id), "PROCESSING");
    await handleOutboundSweep(gw.deps);
    await mine(20);
    assertEquals(await advanceBatch(gw.deps, id), "COMPLETED");

    const done = await batchOf(gw, key, id);
    assertEquals([done.status, done.counts.succeeded, done.attempt], ["COMPLETED", 200, 2]);
    assertEquals(
      await usdtBalance(gw, m.merchantId, false),
      new Decimal(100000).minus(total).minus(fee).toFixed(6),
    );
    assertEquals(await inFlight(gw, false), "0.000000");
    for (const [i, address] of addresses.entries()) {
      assertEquals(await received(address), BigInt(amounts[i].times(1_000_000).toFixed(0)), `item ${i + 1}`);
    }
    // Each item has one payout per attempt: 200 + 4 retried.
    const payouts = await gw.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM outbound_transfers WHERE bulk_item_id IS NOT NULL",
    );
    assertEquals(payouts[0].n, 204);
    const journals = await gw.db.query<{ reference: string }>(
      "SELECT reference FROM journals WHERE reference LIKE 'bulk:%' ORDER BY reference",
    );
    assertEquals(journals.map((j) => j.reference), [`bulk:${id}:execute`, `bulk:${id}:retry:2`]);
    // Events: the single path's payout events, per item and attempt.
    const confirmed = await gw.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM events WHERE merchant_id = $1 AND type = 'payout.confirmed'",
      [m.merchantId],
    );
    assertEquals(confirmed[0].n, 200);

    const report = await gw.app.request(`/v1/bulk-payments/${id}/export`, { headers: { "x-api-key": key } });
    assertEquals(report.headers.get("content-type"), "text/csv; charset=utf-8");
    const lines = (await report.text()).trim().split("\n");
    assertEquals(lines.length, 201);
    assert(lines.slice(1).every((l) => l.includes(",SUCCEEDED,")));
  } finally {
    await gw.close();
  }
});

/** deps whose database "dies" on the statement matching `pattern`, once. */
function killedAt(gw: TestGateway, pattern: RegExp): Deps {
  let armed = true;
  const wrap = (db: Db): Db => ({
    ...db,
    driver: db.driver,
    query(text, params) {
      if (armed && pattern.test(text)) {
        armed = false;
        return Promise.reject(new Error("process killed"));
      }
      return db.query(text, params);
    },
    exec: (text) => db.exec(text),
    tx: (fn) => db.tx((tx) => fn(wrap(tx))),
    afterCommit: (fn) => db.afterCommit(fn),
    close: () => db.close(),
  });
  return { ...gw.deps, db: wrap(gw.deps.db) };
}

Deno.test("a process killed during execution pays no item twice", async () => {
  const ctx = await setup(30);
  const { gw, m, key, addresses, amounts, mine, received } = ctx;
  try {
    const { id, total } = await importAndExecute(ctx);
    // The execute message is lost with the process: nothing runs until a sweep finds the batch.
    // Killed in the middle of dispatching, after the payout rows were written, before the items moved:
    await assertRejects(() => advanceBatch(killedAt(gw, /SET status = 'PROCESSING', payment_id/), id));
    const none = await gw.db.query("SELECT id FROM outbound_transfers WHERE bulk_item_id IS NOT NULL");
    assertEquals(none.length, 0); // rolled back with the transaction
    // Two processes pick the batch up at once (the cron sweep and a late queue message).
    await Promise.all([handleBulkSweep(gw.deps), advanceBatch(gw.deps, id)]);
    const rows = await gw.db.query<{ bulk_item_id: string; n: number }>(
      "SELECT bulk_item_id, count(*)::int AS n FROM outbound_transfers WHERE bulk_item_id IS NOT NULL GROUP BY 1",
    );
    assertEquals([rows.length, rows.every((r) => r.n === 1)], [30, true]);
    // Killed while sending: two broadcasters at once, one of them dying on its first state move.
    await Promise.all([
      handleOutboundSweep(killedAt(gw, /UPDATE outbound_transfers SET status/)),
      handleOutboundSweep(gw.deps),
    ]);
    await handleOutboundSweep(gw.deps);
    await mine(20);
    assertEquals(await advanceBatch(gw.deps, id), "COMPLETED");
    for (const [i, address] of addresses.entries()) {
      assertEquals(await received(address), BigInt(amounts[i].times(1_000_000).toFixed(0)), `item ${i + 1}`);
    }
    const sent = await gw.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM chain_outgoing WHERE NOT superseded AND block_number IS NOT NULL",
    );
    assertEquals(sent[0].n, 30);
    assertEquals(
      await usdtBalance(gw, m.merchantId, false),
      new Decimal(100000).minus(total).minus(30).toFixed(6),
    );
    assertEquals(await inFlight(gw, false), "0.000000");
    assertEquals((await batchOf(gw, key, id)).status, "COMPLETED");
  } finally {
    await gw.close();
  }
});
