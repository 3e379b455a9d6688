// GET /admin/api/treasury: the hot wallet as the chain sees it, what waits to be swept, and the
// reconciliation of what merchants are owed against what the gateway's addresses hold.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { hotWallet } from "../../domain/treasury/hot_wallet.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { creditUsdt } from "../money_out_helpers.ts";

Deno.test("treasury: hot wallet, unswept deposits, reconciliation and the shortfall alarm", async () => {
  const gw = await startTestGateway();
  try {
    const unauthorized = await gw.request("GET", "/admin/api/treasury", { key: "svc_live_sk_x" });
    assertEquals(unauthorized.status, 401);
    const empty = (await gw.admin("GET", "/admin/api/treasury")).json.data;
    assertEquals(empty.hotWallet.address, hotWallet(gw.deps.config, false).address);
    assertEquals([empty.hotWallet.usdt, empty.reconciliation.shortfall], ["0.000000", false]);

    // A real pay-in: 11.5 USDT lands on its deposit address, the merchant is credited 9.85.
    const m = await gw.createMerchant("Treasury Shop");
    await scanChain(gw.deps);
    const payin = await gw.request("POST", "/v1/payments", {
      key: m.keys.liveSecret,
      body: { amount: "10" },
    });
    gw.devnet.transferUsdt(payin.json.data.address, 11_500_000n);
    gw.devnet.mine(5);
    await scanChain(gw.deps);
    gw.devnet.fund(hotWallet(gw.deps.config, false).address, { trx: 7_000_000n, usdt: 2_000_000n });
    const paid = (await gw.admin("GET", "/admin/api/treasury")).json.data;
    assertEquals(paid.hotWallet.address, empty.hotWallet.address);
    assertEquals([paid.hotWallet.usdt, paid.hotWallet.trx], ["2.000000", "7.000000"]);
    assertEquals(paid.hotWallet.energy, {
      limit: 0,
      used: 0,
      stakedTrx: "0.000000",
      delegatedTrx: "0.000000",
    });
    assertEquals(paid.awaitingSweep, { addresses: 1, usdt: "11.500000" });
    assertEquals(paid.reconciliation.owedToMerchants, "9.850000");
    assertEquals(paid.reconciliation.heldOnChain, "13.500000");
    assertEquals([paid.reconciliation.difference, paid.reconciliation.shortfall], ["3.650000", false]);

    // Money in the ledger that no address holds: the alarm sounds, in the answer and in the log.
    await creditUsdt(gw, m.merchantId, false, "100");
    const short = (await gw.admin("GET", "/admin/api/treasury")).json.data;
    assertEquals([short.reconciliation.difference, short.reconciliation.shortfall], ["-96.350000", true]);
    assert(gw.logLines.some((l) => String(l.msg).includes("treasury shortfall")));
  } finally {
    await gw.close();
  }
});
