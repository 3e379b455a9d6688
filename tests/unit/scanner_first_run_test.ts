// The scanner's very first run must not miss a pay-in created and paid just before it.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

Deno.test("a pay-in paid before the scanner's first run is still seen and settled", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Early bird");
    gw.devnet.mine(3);
    const p =
      (await gw.request("POST", "/v1/payments", { key: m.keys.liveSecret, body: { amount: "10" } })).json
        .data;
    gw.devnet.transferUsdt(p.address, 11_500_000n);
    gw.devnet.mine(6);
    const report = await scanChain(gw.deps);
    assertEquals(report.behind, 0);
    const rec =
      (await gw.request("GET", `/v1/payments/${p.transactionId}`, { key: m.keys.liveSecret })).json.data;
    assertEquals([rec.status, rec.amountReceived], ["CONFIRMED", "11.500000"]);
  } finally {
    await gw.close();
  }
});
