// A transfer recorded while a settlement waits for the pay-in's lock must not be left uncredited.
import { insertTransferOnce } from "../../db/chain.ts";
import { lockPayin } from "../../db/payins.ts";
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { settlePayinFromChain } from "../../domain/payins/settle.ts";
import { assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

Deno.test("settlement reads transfers under the pay-in's lock: a racing transfer is never stranded", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Race");
    await scanChain(gw.deps);
    const p =
      (await gw.request("POST", "/v1/payments", { key: m.keys.liveSecret, body: { amount: "10" } })).json
        .data;
    gw.devnet.transferUsdt(p.address, 6_000_000n);
    gw.devnet.mine(1);
    await scanChain(gw.deps); // CONFIRMING with the first transfer
    gw.devnet.mine(5);
    const head = (await gw.deps.tron.getNowBlock()).number;

    // A scanner (another process) records a second transfer while holding the pay-in's lock.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const lockTaken = new Promise<void>((r) => (locked = r));
    const scanner = gw.db.tx(async (tx) => {
      await lockPayin(tx, p.transactionId);
      await insertTransferOnce(tx, {
        txId: "ab".repeat(32),
        logIndex: 0,
        blockNumber: head,
        blockHash: "cd".repeat(32),
        blockTime: new Date(),
        from: "TH7wQtUSTnojZjGgBjm84pF155b4wSQ32n",
        to: p.address,
        amount: "5.5",
        merchantId: m.merchantId,
        kind: "PAYIN",
        payinId: p.transactionId,
        isSandbox: false,
        now: new Date(),
      });
      locked();
      await held;
    });
    await lockTaken;
    const settling = settlePayinFromChain(gw.deps, p.transactionId, head - 4);
    await new Promise((r) => setTimeout(r, 50));
    release();
    await scanner;
    assertEquals(await settling, undefined, "the second transfer is not deep enough yet: no settlement");
    const row =
      (await gw.db.query<{ status: string }>("SELECT status FROM payins WHERE id = $1", [p.transactionId]))[
        0
      ];
    assertEquals(row.status, "CONFIRMING");
    const settled = await settlePayinFromChain(gw.deps, p.transactionId, head);
    assertEquals([settled?.status, settled?.amount_received], ["CONFIRMED", "11.500000"]);
  } finally {
    await gw.close();
  }
});
