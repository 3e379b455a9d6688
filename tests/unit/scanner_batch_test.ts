// A catch-up follows up to BLOCKS_PER_TRANSACTION blocks in one transaction. Each block must be judged as
// it would be alone, after the ones before it: a pay-in funded in one block of the batch is CONFIRMING for
// the next (a payment after its expiry still counts), a pay-in that only got dust is not (its later, late
// payment is a deposit). The same chain scanned one block a transaction and as many as the scanner takes
// at a time (BLOCKS_PER_TRANSACTION) must leave the same pay-ins, transfers and events.
import { BLOCKS_PER_TRANSACTION, scanChain } from "../../domain/payins/chain_scanner.ts";
import { createTronClient } from "../../rails/tron/client.ts";
import { assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

type Outcome = {
  payins: Array<[string, string, string]>;
  transfers: Array<[string, string, string]>;
  events: Array<[string, number]>;
  followed: number;
};

async function scenario(blocksPerTransaction: number): Promise<Outcome> {
  let devnetTime = Date.now();
  const gw = await startTestGateway({ devnetNow: () => devnetTime });
  try {
    const m = await gw.createMerchant("Batch Shop");
    gw.devnet.mine(1);
    await scanChain(gw.deps, { blocksPerTransaction });
    const names = ["paid, then more late", "dust, then paid late", "paid late only", "paid"];
    const payins: Array<{ transactionId: string; address: string }> = [];
    for (const _ of names) {
      const res = await gw.request("POST", "/v1/payments", {
        key: m.keys.liveSecret,
        body: { amount: "10", expiresInSeconds: 900 },
      });
      assertEquals(res.status, 201, res.text);
      payins.push(res.json.data);
    }
    gw.devnet.mine(3);
    // Block A, a minute on: before the pay-ins expire.
    devnetTime += 60_000;
    gw.devnet.transferUsdt(payins[0].address, 11_500_000n);
    gw.devnet.transferUsdt(payins[1].address, 1_000_000n); // dust: below the 1.5 USDT network fee
    gw.devnet.transferUsdt(payins[3].address, 11_500_000n);
    gw.devnet.mine(1);
    // Block B, 1,000 s after creation: past the 900 s expiry.
    devnetTime += 940_000;
    gw.devnet.transferUsdt(payins[0].address, 2_000_000n);
    gw.devnet.transferUsdt(payins[1].address, 11_500_000n);
    gw.devnet.transferUsdt(payins[2].address, 11_500_000n);
    gw.devnet.mine(1);
    const report = await scanChain(gw.deps, { blocksPerTransaction });
    assertEquals(report.behind, 0);
    const order = new Map(payins.map((p, i) => [p.transactionId, names[i]]));
    const rows = await gw.db.query<{ id: string; status: string; amount_received: string | null }>(
      "SELECT id, status, amount_received::text FROM payins WHERE id = ANY($1::text[])",
      [payins.map((p) => p.transactionId)],
    );
    const transfers = await gw.db.query<{ payin_id: string; amount: string; kind: string }>(
      "SELECT payin_id, amount::text, kind FROM chain_transfers",
    );
    const events = await gw.db.query<{ type: string; n: number }>(
      "SELECT type, count(*)::int AS n FROM events WHERE type LIKE 'payin.%' GROUP BY type ORDER BY type",
    );
    return {
      payins: rows.map((r) =>
        [order.get(r.id)!, r.status, Number(r.amount_received ?? 0).toFixed(1)] as [string, string, string]
      ).sort(),
      transfers: transfers.map((t) =>
        [order.get(t.payin_id)!, Number(t.amount).toFixed(1), t.kind] as [string, string, string]
      ).sort(),
      events: events.map((e) => [e.type, e.n]),
      followed: report.scanned,
    };
  } finally {
    await gw.close();
  }
}

Deno.test("blocks followed many to a transaction are judged as one at a time", async () => {
  const one = await scenario(1);
  const batched = await scenario(BLOCKS_PER_TRANSACTION);
  assertEquals(batched.payins, one.payins);
  assertEquals(batched.transfers, one.transfers);
  assertEquals(batched.events, one.events);
  assertEquals(one.payins, [
    ["dust, then paid late", "AWAITING_PAYMENT", "1.0"],
    ["paid late only", "AWAITING_PAYMENT", "0.0"],
    ["paid, then more late", "CONFIRMING", "13.5"],
    ["paid", "CONFIRMING", "11.5"],
  ]);
  assertEquals(one.transfers, [
    ["dust, then paid late", "1.0", "PAYIN"],
    ["dust, then paid late", "11.5", "DEPOSIT"],
    ["paid late only", "11.5", "DEPOSIT"],
    ["paid, then more late", "11.5", "PAYIN"],
    ["paid, then more late", "2.0", "PAYIN"],
    ["paid", "11.5", "PAYIN"],
  ]);
  assertEquals(one.events, [["payin.confirming", 2], ["payin.created", 4]]);
});

Deno.test("a batch whose later block the node fails to give keeps the blocks before it", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Cut Shop");
    gw.devnet.mine(1);
    await scanChain(gw.deps);
    const payins: Array<{ transactionId: string; address: string }> = [];
    for (let i = 0; i < 3; i++) {
      const res = await gw.request("POST", "/v1/payments", {
        key: m.keys.liveSecret,
        body: { amount: "10" },
      });
      payins.push(res.json.data);
    }
    const blocks: number[] = [];
    for (const p of payins) {
      gw.devnet.transferUsdt(p.address, 11_500_000n);
      gw.devnet.mine(1);
      blocks.push(gw.devnet.chain.head.number);
    }
    // The node answers 503 once for the second paying block's transaction infos.
    let failed = 0;
    const tron = createTronClient({
      apiUrl: "http://devnet.internal/devnet",
      fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
        const req = new Request(input, init);
        if (req.url.endsWith("gettransactioninfobyblocknum") && failed === 0) {
          const body = await req.clone().json();
          if (body.num === blocks[1]) {
            failed++;
            return new Response("busy", { status: 503 });
          }
        }
        return gw.devnet.app.fetch(req);
      },
    });
    const deps = { ...gw.deps, tron };
    const status = async (i: number) =>
      (await gw.request("GET", `/v1/payments/${payins[i].transactionId}`, { key: m.keys.liveSecret })).json
        .data.status;
    // The pass stops at the block the node failed to give; the block before it is followed.
    await scanChain(deps).catch(() => undefined);
    assertEquals(failed, 1);
    assertEquals([await status(0), await status(1), await status(2)], [
      "CONFIRMING",
      "AWAITING_PAYMENT",
      "AWAITING_PAYMENT",
    ]);
    const report = await scanChain(deps);
    assertEquals(report.behind, 0);
    assertEquals([await status(0), await status(1), await status(2)], [
      "CONFIRMING",
      "CONFIRMING",
      "CONFIRMING",
    ]);
  } finally {
    await gw.close();
  }
});
