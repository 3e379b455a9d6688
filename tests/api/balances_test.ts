// The balance routes show, per wallet, what is available, what is pending (credited, not yet spendable)
// and what is reserved (accepted payouts and withdrawals in review or in flight), beside the balance.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { manualClock } from "../../domain/clock.ts";
import { Decimal } from "../../domain/money.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import {
  creditUsdt,
  creditWallet,
  idem,
  randomTronAddress,
  usdtBalance,
  whitelist,
} from "../money_out_helpers.ts";

Deno.test("balances: pending until solidified, reserved in review and in flight, released on cancel", async (t) => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Balance Shop");
    const key = m.keys.liveSecret;
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { rateLimits: { default: 1000 } });
    const summary = async () => (await gw.request("GET", "/v1/wallets/balance", { key })).json.data;
    const usdtRow = async () =>
      (await summary()).balances.find((b: { currency: string }) => b.currency === "USDT_TRC20");

    await t.step("a fresh merchant: every figure zero, old fields kept", async () => {
      const s = await summary();
      assertEquals(s.balances.length, 3);
      for (const b of s.balances) {
        assertEquals([b.balance, b.available, b.pending, b.reserved], [
          b.balance,
          b.balance,
          b.balance,
          b.balance,
        ]);
        assert(new Decimal(b.balance).isZero());
      }
      assertEquals(s.totals, { USDT_TRC20: "0.000000", XOF: "0" });
      assertEquals(s.availableTotals, { USDT_TRC20: "0.000000", XOF: "0" });
    });

    let credited = "";
    await t.step("a USDT pay-in credited but not solidified is pending, not available", async () => {
      const payin = await gw.request("POST", "/v1/payments", { key, body: { amount: "10" } });
      gw.devnet.transferUsdt(payin.json.data.address, 11_500_000n);
      gw.devnet.mine(gw.deps.config.tron.payinConfirmations + 1);
      await scanChain(gw.deps);
      credited = await usdtBalance(gw, m.merchantId, false);
      assert(new Decimal(credited).gt(0));
      const row = await usdtRow();
      assertEquals([row.balance, row.pending, row.available], [credited, credited, "0.000000"]);
      const one = (await gw.request("GET", "/v1/merchant/balances/USDT_TRC20", { key })).json.data;
      assertEquals([one.total, one.pending, one.available, one.wallets[0].pending], [
        credited,
        credited,
        "0.000000",
        credited,
      ]);
    });

    await t.step("once its block is solidified it becomes available", async () => {
      gw.devnet.mine(25);
      await scanChain(gw.deps);
      const row = await usdtRow();
      assertEquals([row.balance, row.pending, row.available], [credited, "0.000000", credited]);
    });

    await creditUsdt(gw, m.merchantId, false, "200");
    const start = new Decimal(credited).plus(200);
    await whitelist(gw, key, randomTronAddress(), ["WITHDRAWAL"]);
    const payoutAddress = randomTronAddress();
    await whitelist(gw, key, payoutAddress, ["PAYOUT"]);

    let withdrawalId = "";
    await t.step("a withdrawal waiting for review is reserved in review; a payout in flight", async () => {
      const wd = await gw.request("POST", "/v1/withdrawals", {
        key,
        body: { amount: "50" },
        headers: idem(),
      });
      assertEquals(wd.status, 201);
      withdrawalId = wd.json.data.id;
      const po = await gw.request("POST", "/v1/payout", {
        key,
        body: { amount: "20", destinationAddress: payoutAddress },
        headers: idem(),
      });
      assertEquals([po.status, po.json.data.status], [201, "PROCESSING"]);
      const payoutDebited = new Decimal(20).plus(po.json.data.processingFee);
      const row = await usdtRow();
      const balance = start.minus(50).minus(payoutDebited);
      assertEquals([row.balance, row.available, row.pending], [
        balance.toFixed(6),
        balance.toFixed(6),
        "0.000000",
      ]);
      assertEquals([row.reservedInReview, row.reservedInFlight, row.reserved], [
        "50.000000",
        payoutDebited.toFixed(6),
        payoutDebited.plus(50).toFixed(6),
      ]);
      const one = (await gw.request("GET", "/v1/merchant/balances/USDT_TRC20", { key })).json.data;
      assertEquals(one.reserved, payoutDebited.plus(50).toFixed(6));
      const xof = (await gw.request("GET", "/v1/merchant/balances/XOF", { key })).json.data;
      assertEquals([xof.total, xof.reserved, xof.wallets.length], ["0", "0", 2]);
    });

    await t.step("cancelling the withdrawal releases its reservation into the balance", async () => {
      const before = await usdtRow();
      assertEquals((await gw.request("DELETE", `/v1/withdrawals/${withdrawalId}`, { key })).status, 200);
      const row = await usdtRow();
      assertEquals(row.reservedInReview, "0.000000");
      assertEquals(row.balance, new Decimal(before.balance).plus(50).toFixed(6));
      assertEquals(row.reserved, row.reservedInFlight);
    });

    await t.step("sandbox balances are their own", async () => {
      const s = (await gw.request("GET", "/v1/wallets/balance", { key: m.keys.testSecret })).json.data;
      const usdt = s.balances.find((b: { currency: string }) => b.currency === "USDT_TRC20");
      assertEquals([s.isSandbox, s.totals.USDT_TRC20, usdt.reserved, usdt.pending], [
        true,
        "0.000000",
        "0.000000",
        "0.000000",
      ]);
    });
  } finally {
    await gw.close();
  }
});

Deno.test("balances: an XOF withdrawal in review is reserved on its own wallet, not on the USDT one", async () => {
  const clock = manualClock(new Date("2026-11-20T08:00:00Z"));
  const gw = await startTestGateway({ clock });
  try {
    const m = await gw.createMerchant("Xof Balance Shop");
    const key = m.keys.liveSecret;
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { rateLimits: { default: 1000 } });
    await creditWallet(gw, m.merchantId, false, "MOMO", "20000");
    const dest = await gw.request("POST", "/v1/merchants/fiat-destinations", {
      key,
      body: { kind: "MOMO", momoOperator: "OPERATOR_B_BF", momoPhone: "+22670123456" },
    });
    assertEquals(dest.status, 201, dest.text);
    clock.advance(24 * 3600 * 1000 + 1000);
    const wdr = await gw.request("POST", "/v1/withdrawals", {
      key,
      body: { amount: "5000", currency: "XOF", rail: "MOMO" },
      headers: idem(),
    });
    assertEquals(wdr.status, 201, wdr.text);
    const rows = (await gw.request("GET", "/v1/wallets/balance", { key })).json.data.balances;
    const momo = rows.find((b: { rail: string }) => b.rail === "MOMO");
    const usdt = rows.find((b: { rail: string }) => b.rail === "TRC20");
    assertEquals([momo.balance, momo.reserved, momo.reservedInReview, momo.reservedInFlight], [
      "15000",
      "5000",
      "5000",
      "0",
    ]);
    assertEquals(usdt.reserved, "0.000000");
    const cancelled = await gw.request("DELETE", `/v1/withdrawals/${wdr.json.data.id}`, { key });
    assertEquals(cancelled.status, 200, cancelled.text);
    const after = (await gw.request("GET", "/v1/wallets/balance", { key })).json.data.balances;
    const momoAfter = after.find((b: { rail: string }) => b.rail === "MOMO");
    assertEquals([momoAfter.balance, momoAfter.reserved], ["20000", "0"]);
  } finally {
    await gw.close();
  }
});
