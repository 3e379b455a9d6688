// The scanner at scale: what it asks the node while catching up, and what one block full of payments
// does to the pay-ins it pays (the block's transfers are recorded together, not one by one).
import { scanChain, SETTLE_PER_PASS } from "../../domain/payins/chain_scanner.ts";
import { authenticateApiKey } from "../../domain/auth.ts";
import { createUsdtPayin } from "../../domain/payins/create.ts";
import { createTronClient } from "../../rails/tron/client.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

type Gateway = Awaited<ReturnType<typeof startTestGateway>>;

/** The gateway's deps with a TRON client whose node requests are counted, by method. */
function countingDeps(gw: Gateway) {
  const calls: string[] = [];
  const tron = createTronClient({
    apiUrl: "http://devnet.internal/devnet",
    fetch: (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      calls.push(new URL(req.url).pathname.replace("/devnet/", ""));
      return Promise.resolve(gw.devnet.app.fetch(req));
    },
  });
  return { deps: { ...gw.deps, tron }, calls };
}

async function createPayins(gw: Gateway, key: string, count: number) {
  const out: Array<{ transactionId: string; address: string }> = [];
  for (let i = 0; i < count; i++) {
    const res = await gw.request("POST", "/v1/payments", { key, body: { amount: "10" } });
    assertEquals(res.status, 201);
    out.push(res.json.data);
  }
  return out;
}

Deno.test("catching up 250 blocks asks the node for blocks a hundred at a time, and for infos only where there are transactions", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Backlog");
    gw.devnet.mine(1);
    await scanChain(gw.deps); // following from block 1
    const payins = await createPayins(gw, m.keys.liveSecret, 6);
    // 250 blocks, six of them carrying one exact payment each.
    for (let b = 0; b < 250; b++) {
      if (b % 40 === 0 && b < 240) gw.devnet.transferUsdt(payins[b / 40].address, 11_500_000n);
      gw.devnet.mine(1);
    }
    const { deps, calls } = countingDeps(gw);
    let passes = 0;
    for (let behind = 1; behind > 0; passes++) behind = (await scanChain(deps)).behind;
    // Per pass: the head, then blocks in ranges of 100; per block with transactions: its infos.
    const count = (method: string) => calls.filter((c) => c === method).length;
    assertEquals(count("wallet/getnowblock"), passes);
    assertEquals(count("wallet/getblockbylimitnext"), 3);
    assertEquals(count("wallet/gettransactioninfobyblocknum"), 6);
    assertEquals(count("wallet/getblockbynum"), 0);
    assert(calls.length <= 3 * 250, `${calls.length} node requests for 250 blocks`);
    assertEquals(calls.length, passes + 3 + 6);
    for (const p of payins) {
      const rec =
        (await gw.request("GET", `/v1/payments/${p.transactionId}`, { key: m.keys.liveSecret })).json
          .data;
      assertEquals([rec.status, rec.amountReceived], ["CONFIRMED", "11.500000"]);
    }
  } finally {
    await gw.close();
  }
});

Deno.test("one block paying many pay-ins, one of them twice: each counted once, one CONFIRMING event each", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Busy block");
    gw.devnet.mine(1);
    await scanChain(gw.deps);
    const payins = await createPayins(gw, m.keys.liveSecret, 12);
    for (const p of payins) gw.devnet.transferUsdt(p.address, 11_500_000n);
    gw.devnet.transferUsdt(payins[0].address, 2_000_000n); // the first is paid twice in the same block
    gw.devnet.transferUsdt(payins[1].address, 1_000n); // dust on top of a full payment
    gw.devnet.mine(1);
    await scanChain(gw.deps);
    await scanChain(gw.deps); // nothing new: nothing counted twice
    const view = async (id: string) =>
      (await gw.request("GET", `/v1/payments/${id}`, { key: m.keys.liveSecret })).json.data;
    const first = await view(payins[0].transactionId);
    assertEquals([first.status, first.amountReceived], ["CONFIRMING", "13.500000"]);
    assertEquals((await view(payins[1].transactionId)).amountReceived, "11.501000");
    for (const p of payins.slice(2)) {
      const rec = await view(p.transactionId);
      assertEquals([rec.status, rec.amountReceived], ["CONFIRMING", "11.500000"]);
      assert(/^[0-9a-f]{64}$/.test(rec.txHash), "the paying transaction is named");
    }
    const events = await gw.db.query<{ payin: string; n: number }>(
      `SELECT data->>'transactionId' AS payin, count(*)::int AS n FROM events
        WHERE type = 'payin.confirming' GROUP BY 1`,
    );
    assertEquals(events.length, payins.length);
    assert(events.every((e) => e.n === 1), "one payin.confirming event per pay-in");
    const confirming = events.find((e) => e.payin === payins[0].transactionId);
    assert(confirming, "the pay-in paid twice has its event");

    // Five confirmations later each is settled once, for what it received.
    gw.devnet.mine(5);
    await scanChain(gw.deps);
    const settled = await view(payins[0].transactionId);
    assertEquals([settled.status, settled.amountReceived], ["OVERPAID", "13.500000"]);
    const journals = await gw.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM journals WHERE reference = ANY($1::text[])",
      [payins.map((p) => `payin:${p.transactionId}`)],
    );
    assertEquals(journals[0].n, payins.length);
  } finally {
    await gw.close();
  }
});

Deno.test("transaction infos that are not the block's own (a node answering from another fork) are refused", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Fork");
    gw.devnet.mine(1);
    await scanChain(gw.deps);
    const [a, b] = await createPayins(gw, m.keys.liveSecret, 2);
    gw.devnet.transferUsdt(a.address, 11_500_000n);
    gw.devnet.mine(1);
    gw.devnet.transferUsdt(b.address, 11_500_000n);
    gw.devnet.mine(1);
    const real = gw.deps.tron;
    // Block n's infos answered with block n+1's: b's payment would be booked in a block that lacks it.
    const lying = {
      ...real,
      getTransactionInfosByBlock: (n: number) => real.getTransactionInfosByBlock(n + 1),
    };
    let failed = false;
    await scanChain({ ...gw.deps, tron: lying }).catch(() => (failed = true));
    assert(failed, "the scan stops at the block whose infos do not match");
    const transfers = await gw.db.query("SELECT tx_id FROM chain_transfers");
    assertEquals(transfers.length, 0);
    // An honest node afterwards: both payments, each in its own block.
    await scanChain(gw.deps);
    const rows = await gw.db.query<{ payin_id: string; block_number: string }>(
      "SELECT payin_id, block_number::text FROM chain_transfers ORDER BY block_number",
    );
    assertEquals(rows.map((r) => r.payin_id), [a.transactionId, b.transactionId]);
    assertEquals(Number(rows[1].block_number) - Number(rows[0].block_number), 1);
  } finally {
    await gw.close();
  }
});

Deno.test("a pass that fails leaves no node request running behind it (the infos asked for ahead are awaited)", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Drain");
    gw.devnet.mine(1);
    await scanChain(gw.deps);
    const payins = await createPayins(gw, m.keys.liveSecret, 6);
    const first = gw.devnet.chain.head.number + 1;
    for (const p of payins) {
      gw.devnet.transferUsdt(p.address, 11_500_000n);
      gw.devnet.mine(1);
    }
    const real = gw.deps.tron;
    let running = 0;
    // The first block's infos fail at once; the infos of the blocks after it, asked for ahead, are slow.
    const slowAhead = {
      ...real,
      getTransactionInfosByBlock: async (n: number) => {
        if (n === first) throw new Error("node fell over");
        running++;
        await new Promise((resolve) => setTimeout(resolve, 50));
        running--;
        return real.getTransactionInfosByBlock(n);
      },
    };
    let failed = false;
    // Two blocks a transaction: the infos of the four blocks after each are asked for beyond the batch.
    await scanChain({ ...gw.deps, tron: slowAhead }, { blocksPerTransaction: 2 }).catch(
      () => (failed = true),
    );
    assert(failed, "the pass fails at the block whose infos failed");
    assertEquals(running, 0, "no request is under way once the pass has returned");
    const after = await scanChain(gw.deps);
    assertEquals(after.behind, 0);
    const transfers = await gw.db.query("SELECT tx_id FROM chain_transfers");
    assertEquals(transfers.length, payins.length);
  } finally {
    await gw.close();
  }
});

Deno.test("more settlements due than one pass does: the pass says so, and the next passes settle the rest once", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Settle backlog");
    gw.devnet.mine(1);
    await scanChain(gw.deps);
    const count = SETTLE_PER_PASS + 5;
    // Through the domain function: more pay-ins than the API's rate limit lets one key create at once.
    const caller = await authenticateApiKey(gw.deps, m.keys.liveSecret);
    for (let i = 0; i < count; i++) {
      const { payin } = await createUsdtPayin(gw.deps, caller, false, { amount: "10" });
      gw.devnet.transferUsdt(payin.address!, 11_500_000n);
    }
    gw.devnet.mine(6);
    const first = await scanChain(gw.deps);
    assertEquals([first.behind, first.settled, first.settleBacklog], [0, SETTLE_PER_PASS, true]);
    const second = await scanChain(gw.deps);
    assertEquals([second.settled, second.settleBacklog], [5, false]);
    const rows = await gw.db.query<{ status: string; n: number }>(
      "SELECT status, count(*)::int AS n FROM payins GROUP BY status",
    );
    assertEquals(rows.map((r) => [r.status, r.n]), [["CONFIRMED", count]]);
    const journals = await gw.db.query<{ n: number }>(
      "SELECT count(DISTINCT reference)::int AS n FROM journals WHERE reference LIKE 'payin:%'",
    );
    assertEquals(journals[0].n, count);
  } finally {
    await gw.close();
  }
});
