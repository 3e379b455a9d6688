// Direct deposits: a merchant's standing USDT address (GET /v1/wallets/deposit-address), credited at 20
// confirmations less the network fee with deposit.confirmed, dust refused with deposit.failed, swept like a
// pay-in's address, and the usual way to fund a payout.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { hotWallet } from "../../domain/treasury/hot_wallet.ts";
import { runSweeps } from "../../domain/treasury/sweep.ts";
import { isTronAddress } from "../../rails/tron/address.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { eventTypes, usdtBalance } from "../money_out_helpers.ts";

Deno.test("direct deposits: standing address, credit at 20 confirmations, dust, sweep", async (t) => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Top-up Shop");
    const other = await gw.createMerchant("Other Shop");
    await scanChain(gw.deps);
    const get = (key: string) => gw.request("GET", "/v1/wallets/deposit-address", { key });
    let address = "";

    await t.step("one standing address per merchant and mode, stable across calls and bursts", async () => {
      const answers = await Promise.all(Array.from({ length: 50 }, () => get(m.keys.liveSecret)));
      assert(answers.every((a) => a.status === 200));
      assertEquals(new Set(answers.map((a) => a.json.data.address)).size, 1);
      address = answers[0].json.data.address;
      assert(isTronAddress(address));
      assertMatch(answers[0].json.data.qrCodeUrl, /^data:image\/png;base64,/);
      assertEquals([answers[0].json.data.networkFee, answers[0].json.data.confirmations], ["1.500000", 20]);
      const sandbox = (await get(m.keys.testSecret)).json.data;
      const theirs = (await get(other.keys.liveSecret)).json.data;
      assertEquals(new Set([address, sandbox.address, theirs.address]).size, 3);
      assertEquals(sandbox.isSandbox, true);
      assertEquals((await get(m.keys.livePublishable)).status, 403);
    });

    await t.step("a top-up is credited at 20 confirmations, less the network fee", async () => {
      gw.devnet.transferUsdt(address, 100_000_000n);
      gw.devnet.mine(19);
      await scanChain(gw.deps);
      assertEquals(await usdtBalance(gw, m.merchantId, false), "0.000000"); // 19 confirmations
      gw.devnet.mine(1);
      await scanChain(gw.deps);
      assertEquals(await usdtBalance(gw, m.merchantId, false), "98.500000");
      assertEquals(await eventTypes(gw, m.merchantId), ["deposit.confirmed"]);
      const [event] = await gw.db.query<{ data: Record<string, unknown> }>(
        "SELECT data FROM events WHERE merchant_id = $1 AND type = 'deposit.confirmed'",
        [m.merchantId],
      );
      assertEquals([event.data.address, event.data.amount, event.data.netAmount], [
        address,
        "100.000000",
        "98.500000",
      ]);
      assertEquals(event.data.payinId, null);
      gw.devnet.mine(5);
      await scanChain(gw.deps);
      assertEquals(await usdtBalance(gw, m.merchantId, false), "98.500000"); // credited once
    });

    await t.step("dust below the network fee is deposit.failed and credits nothing", async () => {
      gw.devnet.transferUsdt(address, 1_000_000n);
      gw.devnet.mine(20);
      await scanChain(gw.deps);
      assertEquals(await usdtBalance(gw, m.merchantId, false), "98.500000");
      assertEquals((await eventTypes(gw, m.merchantId)).at(-1), "deposit.failed");
    });

    await t.step("the standing address is swept into the hot wallet like a pay-in's", async () => {
      const hot = hotWallet(gw.deps.config, false);
      gw.devnet.fund(hot.address, { trx: 20_000_000_000n });
      let report = await runSweeps(gw.deps);
      for (let i = 0; i < 15 && report.running; i++) {
        gw.devnet.mine(1);
        report = await runSweeps(gw.deps);
      }
      const contract = gw.deps.config.tron.usdtContract;
      assertEquals(await gw.deps.tron.getUsdtBalance(contract, address), 0n);
      assertEquals(await gw.deps.tron.getUsdtBalance(contract, hot.address), 101_000_000n);
    });
  } finally {
    await gw.close();
  }
});
