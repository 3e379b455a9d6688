// The hot wallet is reserved, not just read: payouts accepted at once against a hot wallet that covers
// only some of them are signed only as far as it covers them (counting transfers signed and not yet in a
// block), the rest wait with a reason the merchant reads, and once sweeps catch up every one is confirmed
// with not a single revert on chain.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { sendOutbound } from "../../domain/money_out/send.ts";
import { hotWallet } from "../../domain/treasury/hot_wallet.ts";
import { runSweeps } from "../../domain/treasury/sweep.ts";
import { handleOutboundSweep } from "../../jobs/money_out.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { creditUsdt, idem, randomTronAddress, usdtBalance, whitelist } from "../money_out_helpers.ts";

const TRX = 1_000_000n;
const USDT = 1_000_000n;

Deno.test("payouts accepted at once against a hot wallet that covers only some: none reverts, all confirm after sweeps", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Reserved Shop");
    const key = m.keys.liveSecret;
    const hot = hotWallet(gw.deps.config, false);
    const usdtOf = (a: string) => gw.deps.tron.getUsdtBalance(gw.deps.config.tron.usdtContract, a);
    // The hot wallet holds 30 USDT and TRX to stake for sweeps; four customers pay 20 USDT each.
    gw.devnet.fund(hot.address, { trx: 60_000n * TRX, usdt: 30n * USDT });
    gw.devnet.mine(1);
    await scanChain(gw.deps);
    for (let i = 0; i < 4; i++) {
      const payin = await gw.request("POST", "/v1/payments", { key, body: { amount: "20" } });
      gw.devnet.transferUsdt(payin.json.data.address, 21_500_000n);
    }
    gw.devnet.mine(25); // settled (5) and solidified (19)
    await scanChain(gw.deps);

    // Six payouts of 12 USDT (13 debited each: 78 of the 78.80 credited), accepted in the same moment.
    const destinations = Array.from({ length: 6 }, () => randomTronAddress());
    for (const d of destinations) await whitelist(gw, key, d, ["PAYOUT"]);
    const accepted = await Promise.all(
      destinations.map((destinationAddress) =>
        gw.request("POST", "/v1/payout", {
          key,
          body: { amount: "12", destinationAddress },
          headers: idem(),
        })
      ),
    );
    assertEquals(accepted.map((r) => r.status), Array(6).fill(201));
    const ids: string[] = accepted.map((r) => r.json.data.transactionId);

    // Every sender at once, from what would be several processes: 30 USDT cover two 12 USDT transfers.
    const outcomes = await Promise.all(ids.map((id) => sendOutbound(gw.deps, id)));
    assertEquals(outcomes.filter((o) => o === "sent").length, 2, outcomes.join());
    assertEquals(outcomes.filter((o) => o === "waiting-for-hot-wallet").length, 4, outcomes.join());
    // A second round before any block: the two signed transfers still count against the 30 USDT.
    const again = await Promise.all(ids.map((id) => sendOutbound(gw.deps, id)));
    assertEquals(again.filter((o) => o === "waiting-for-hot-wallet").length, 4, again.join());

    // A waiting payout tells the merchant why, and since when.
    const waiting = ids[outcomes.indexOf("waiting-for-hot-wallet")];
    const read = await gw.request("GET", `/v1/payout/${waiting}`, { key });
    assertEquals(read.json.data.status, "PROCESSING");
    assertEquals(read.json.data.waiting.reason, "HOT_WALLET_FUNDS");
    assert(read.json.data.waiting.message.includes("sweep"));
    assert(!Number.isNaN(Date.parse(read.json.data.waiting.since)));
    const sent = ids[outcomes.indexOf("sent")];
    assertEquals((await gw.request("GET", `/v1/payout/${sent}`, { key })).json.data.waiting, null);
    const treasury = (await gw.admin("GET", "/admin/api/treasury")).json.data;
    assertEquals(treasury.waitingToSend.count, 4);
    assertEquals(treasury.waitingToSend.alarm, false);

    // Sweeps and senders run as the jobs do, a block at a time, until every payout is final.
    // (Read from the database while it runs: the API's per-key limit is for merchants, not for polling here.)
    const statuses = () =>
      gw.db.query<{ status: string }>(`SELECT status FROM outbound_transfers WHERE id = ANY($1::text[])`, [
        ids,
      ]);
    for (let round = 0; round < 80; round++) {
      const now = await statuses();
      if (now.every((p) => p.status === "CONFIRMED" || p.status === "FAILED")) break;
      await runSweeps(gw.deps, { urgent: true });
      await handleOutboundSweep(gw.deps);
      gw.devnet.mine(1);
      await scanChain(gw.deps);
    }
    const final = await Promise.all(
      ids.map(async (id) => (await gw.request("GET", `/v1/payout/${id}`, { key })).json.data),
    );
    assertEquals(final.map((p) => p.status), Array(6).fill("CONFIRMED"));
    assertEquals(final.map((p) => p.waiting), Array(6).fill(null));
    for (const d of destinations) assertEquals(await usdtOf(d), 12n * USDT);
    // One transaction each, all successful: nothing reverted, nothing re-signed.
    const txs = await gw.db.query<{ outbound_id: string; result: string }>(
      `SELECT outbound_id, result FROM chain_outgoing WHERE outbound_id = ANY($1::text[])`,
      [ids],
    );
    assertEquals(txs.length, 6);
    assert(txs.every((t) => t.result === "SUCCESS"), JSON.stringify(txs));
    // 30 + 4 x 21.5 swept - 72 paid out.
    assertEquals(await usdtOf(hot.address), 44n * USDT);
  } finally {
    await gw.close();
  }
});

Deno.test("a payout refused while credits solidify is not the key's outcome: the same key succeeds once they are deep", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Solid Shop");
    const key = m.keys.liveSecret;
    gw.devnet.mine(1);
    await scanChain(gw.deps);
    const payin = await gw.request("POST", "/v1/payments", { key, body: { amount: "20" } });
    gw.devnet.transferUsdt(payin.json.data.address, 21_500_000n);
    gw.devnet.mine(6); // settled at 5, not yet 19 deep
    await scanChain(gw.deps);
    const dest = randomTronAddress();
    await whitelist(gw, key, dest, ["PAYOUT"]);
    const headers = idem();
    const first = await gw.request("POST", "/v1/payout", {
      key,
      body: { amount: "10", destinationAddress: dest },
      headers,
    });
    assertEquals([first.status, first.json.error.code, first.json.error.cause], [
      400,
      "INSUFFICIENT_BALANCE",
      "AWAITING_SOLIDIFICATION",
    ]);
    gw.devnet.mine(20);
    await scanChain(gw.deps);
    const retry = await gw.request("POST", "/v1/payout", {
      key,
      body: { amount: "10", destinationAddress: dest },
      headers,
    });
    assertEquals(retry.status, 201, retry.text);
    assertEquals(retry.headers.get("idempotent-replayed"), null);
    // From then on the key's outcome is the payout, replayed.
    const replay = await gw.request("POST", "/v1/payout", {
      key,
      body: { amount: "10", destinationAddress: dest },
      headers,
    });
    assertEquals([replay.status, replay.json.data.transactionId], [201, retry.json.data.transactionId]);
  } finally {
    await gw.close();
  }
});

Deno.test("a hot wallet emptied by hand mid-run: the signed payout reverts and is refunded once, the next waits with its reason", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Emptied Shop");
    const key = m.keys.liveSecret;
    const hot = hotWallet(gw.deps.config, false);
    gw.devnet.fund(hot.address, { trx: 1_000n * TRX, usdt: 30n * USDT });
    gw.devnet.mine(1);
    await scanChain(gw.deps);
    await creditUsdt(gw, m.merchantId, false, "100");
    const dest = randomTronAddress();
    await whitelist(gw, key, dest, ["PAYOUT"]);
    const pay = async (amount: string) =>
      (await gw.request("POST", "/v1/payout", {
        key,
        body: { amount, destinationAddress: dest },
        headers: idem(),
      }))
        .json.data.transactionId as string;
    const first = await pay("20");
    assertEquals(await sendOutbound(gw.deps, first), "sent");
    gw.devnet.mine(1);
    await scanChain(gw.deps);
    // A reorg drops the payout's block, and someone with the hot wallet's key empties it first: the
    // payout's stored bytes are sent again and land after, with nothing left to pay.
    assertEquals(gw.devnet.reorg(1).dropped.length, 1);
    gw.devnet.transferUsdt(randomTronAddress(), 30n * USDT, hot.privateKeyHex);
    gw.devnet.mine(2);
    await scanChain(gw.deps);
    assertEquals(await sendOutbound(gw.deps, first), "already-sent");
    gw.devnet.mine(1);
    await scanChain(gw.deps);
    const second = await pay("5");
    assertEquals(await sendOutbound(gw.deps, second), "waiting-for-hot-wallet");
    gw.devnet.mine(20);
    await scanChain(gw.deps);
    await scanChain(gw.deps);
    const failed = (await gw.request("GET", `/v1/payout/${first}`, { key })).json.data;
    assertEquals([failed.status, failed.failureReason], ["FAILED", "CHAIN_REVERT"]);
    // 100 - 6 (the second, still reserved): the first's 21 came back exactly once.
    assertEquals(await usdtBalance(gw, m.merchantId, false), "94.000000");
    await scanChain(gw.deps);
    assertEquals(await usdtBalance(gw, m.merchantId, false), "94.000000");
    const waiting = (await gw.request("GET", `/v1/payout/${second}`, { key })).json.data;
    assertEquals([waiting.status, waiting.waiting.reason], ["PROCESSING", "HOT_WALLET_FUNDS"]);
    assert((await gw.admin("GET", "/admin/api/treasury")).json.data.reconciliation.shortfall);
  } finally {
    await gw.close();
  }
});
