// A scanner that followed a node on another fork, then the real chain: the reorg orphans the transfer it
// saw, and the same transaction, included again by the real chain's block, is seen anew and credited once.
// (Found by the fault run: the orphaned row used to swallow the re-inclusion, and the pay-in stayed unpaid.)
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { createTronClient } from "../../rails/tron/client.ts";
import { assertEquals } from "../assert.ts";
import { faultyNode } from "../fault_node.ts";
import { startTestGateway } from "../helpers.ts";

Deno.test("a transfer seen on a forked node and then on the real chain is credited once", async () => {
  const gw = await startTestGateway();
  try {
    const direct = gw.deps.tron;
    const forked = faultyNode((req) => gw.devnet.app.fetch(req), "http://devnet.internal/devnet");
    forked.set("fork");
    const m = await gw.createMerchant("Fork SARL");
    gw.devnet.mine(3);
    await scanChain(gw.deps);
    const p = (await gw.request("POST", "/v1/payments", { key: m.keys.liveSecret, body: { amount: "10" } }))
      .json.data;
    gw.devnet.transferUsdt(p.address, 11_500_000n);
    gw.devnet.mine(1);

    gw.deps.tron = createTronClient({ apiUrl: "http://node-f/devnet", fetch: forked.fetch });
    await scanChain(gw.deps);
    const seen = await gw.request("GET", `/v1/payments/${p.transactionId}`, { key: m.keys.liveSecret });
    assertEquals(seen.json.data.status, "CONFIRMING", "seen on the forked node's block");

    gw.deps.tron = direct;
    gw.devnet.mine(6);
    for (let i = 0; i < 5; i++) await scanChain(gw.deps);
    const rec = await gw.request("GET", `/v1/payments/${p.transactionId}`, { key: m.keys.liveSecret });
    assertEquals([rec.json.data.status, rec.json.data.amountReceived], ["CONFIRMED", "11.500000"]);
    const credits = await gw.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM journals WHERE reference = $1",
      [`payin:${p.transactionId}`],
    );
    assertEquals(credits[0].n, 1);
    const rows = await gw.db.query<{ status: string }>(
      "SELECT status FROM chain_transfers WHERE payin_id = $1",
      [p.transactionId],
    );
    assertEquals(rows.map((r) => r.status), ["CREDITED"]);
  } finally {
    await gw.close();
  }
});
