// Plan limits through the whole app: the configured daily money-out cap, an operator's own limits for one
// merchant (not another's), 50 concurrent payouts at the last unit of a daily cap (exactly what fits is
// accepted, nothing reserved twice), the monthly limit resetting on the first (UTC), the daily
// conversion count, and GET /v1/merchant/usage/limits showing each with its use.
import { manualClock } from "../../domain/clock.ts";
import { findWallet } from "../../db/ledger.ts";
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

Deno.test("plan limits: daily and monthly money-out caps, conversions per day, 50 at the last unit", async (t) => {
  const clock = manualClock(new Date("2026-03-30T10:00:00.000Z"));
  const gw = await startTestGateway({ clock, env: { PLAN_MONEY_OUT_DAILY_USDT: "30" } });
  try {
    const m = await gw.createMerchant("Capped Shop");
    const other = await gw.createMerchant("Other Shop");
    const key = m.keys.liveSecret;
    for (const who of [m, other]) {
      await gw.admin("PATCH", `/admin/api/merchants/${who.merchantId}`, {
        rateLimits: { "POST /v1/payout": 1000, default: 1000 },
      });
      await creditUsdt(gw, who.merchantId, false, "1000");
    }
    const dest = randomTronAddress();
    await whitelist(gw, key, dest, ["PAYOUT"]);
    const payout = (amount: string, k = key) =>
      gw.request("POST", "/v1/payout", {
        key: k,
        headers: idem(),
        body: { amount, destinationAddress: dest },
      });
    const limits = async (k = key) =>
      (await gw.request("GET", "/v1/merchant/usage/limits", { key: k })).json.data;

    await t.step("the configured daily cap: 30 USDT, a payout past it is DAILY_CAP_EXCEEDED", async () => {
      assertEquals((await payout("20")).status, 201);
      const over = await payout("10.000001");
      assertEquals([over.status, over.json.error.code], [403, "DAILY_CAP_EXCEEDED"]);
      assertEquals((await payout("10")).status, 201);
      const plan = (await limits()).plan.moneyOutDailyUsdt;
      assertEquals([plan.limit, plan.used, plan.remaining, plan.code], [
        "30",
        "30",
        "0",
        "DAILY_CAP_EXCEEDED",
      ]);
      assertEquals(plan.resetsAt, "2026-03-31T00:00:00.000Z");
      // 30 + 2 fees of 1 left the wallet; the refused one reserved nothing.
      assertEquals(await usdtBalance(gw, m.merchantId, false), "968.000000");
    });

    await t.step("an operator raises one merchant's cap; the other merchant keeps the default", async () => {
      const set = await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}/plan-limits`, {
        moneyOutDailyUsdt: "130",
      });
      assertEquals(set.status, 200);
      assertEquals(set.json.data.moneyOutDailyUsdt, "130");
      for (const bad of [{ moneyOutDailyUsdt: "-1" }, { moneyOutDailyUsdt: 5 }, { nope: "1" }]) {
        assertEquals(
          (await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}/plan-limits`, bad)).status,
          400,
        );
      }
      const unknown = await gw.admin("PATCH", `/admin/api/merchants/mch_${"0".repeat(26)}/plan-limits`, {
        moneyOutDailyUsdt: "1",
      });
      assertEquals(unknown.json.error.code, "MERCHANT_NOT_FOUND");
      assertEquals((await limits(other.keys.liveSecret)).plan.moneyOutDailyUsdt.limit, "30");
      assertEquals((await limits(other.keys.liveSecret)).plan.moneyOutDailyUsdt.used, "0");
    });

    await t.step("50 concurrent payouts of 5 with 100 of the cap left: exactly 20 accepted", async () => {
      const answers = await Promise.all(Array.from({ length: 50 }, () => payout("5")));
      const accepted = answers.filter((a) => a.status === 201).length;
      const capped = answers.filter((a) => a.json?.error?.code === "DAILY_CAP_EXCEEDED").length;
      assert(answers.every((a) => a.status === 201 || a.status === 403), "no other answer");
      assertEquals([accepted, capped], [20, 30]);
      assertEquals((await limits()).plan.moneyOutDailyUsdt.used, "130");
      // 968 - 20 x (5 + 1 fee): the refused 30 reserved nothing.
      assertEquals(await usdtBalance(gw, m.merchantId, false), "848.000000");
    });

    await t.step("a new UTC day resets the daily cap; the monthly limit counts the whole month", async () => {
      await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}/plan-limits`, {
        moneyOutMonthlyUsdt: "200",
      });
      clock.set(new Date("2026-03-31T00:00:00.000Z"));
      assertEquals((await limits()).plan.moneyOutDailyUsdt.used, "0");
      assertEquals((await limits()).plan.moneyOutMonthlyUsdt.used, "130");
      assertEquals((await payout("70")).status, 201);
      const month = await payout("5");
      assertEquals([month.status, month.json.error.code], [403, "MONTHLY_LIMIT_EXCEEDED"]);
      clock.set(new Date("2026-04-01T00:00:01.000Z"));
      assertEquals((await payout("5")).status, 201, "the first of the month resets it");
      const restored = await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}/plan-limits`, {
        moneyOutMonthlyUsdt: null,
      });
      assertEquals(restored.json.data.moneyOutMonthlyUsdt, "1000000");
    });

    await t.step(
      "conversions per day: the count past the limit is DAILY_CONVERSION_COUNT_LIMIT",
      async () => {
        await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}/plan-limits`, {
          conversionsDailyCount: "2",
        });
        await creditWallet(gw, m.merchantId, false, "CARD", "100000");
        const from = await findWallet(gw.db, m.merchantId, false, "USDT_TRC20", "TRC20");
        const to = await findWallet(gw.db, m.merchantId, false, "XOF", "MOMO");
        const convert = () =>
          gw.request("POST", "/v1/conversions/wallet", {
            key,
            headers: idem(),
            body: { fromWalletId: from!.id, toWalletId: to!.id, fromAmount: "10" },
          });
        const answers = await Promise.all(Array.from({ length: 10 }, convert));
        assertEquals(answers.filter((a) => a.status === 201).length, 2);
        assert(
          answers.filter((a) => a.status !== 201).every((a) =>
            a.json.error.code === "DAILY_CONVERSION_COUNT_LIMIT"
          ),
        );
        const plan = (await limits()).plan.conversionsDailyCount;
        assertEquals([plan.limit, plan.used, plan.unit], ["2", "2", "count"]);
        // The USDT volume per day: 20 converted, 25 allowed.
        await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}/plan-limits`, {
          conversionsDailyCount: "100",
          conversionsDailyVolumeUsdt: "25",
        });
        const over = await convert();
        assertEquals([over.status, over.json.error.code], [403, "DAILY_CONVERSION_LIMIT"]);
        const volume = (await limits()).plan.conversionsDailyVolumeUsdt;
        assertEquals([volume.limit, volume.used, volume.remaining], ["25", "20", "5"]);
      },
    );

    await t.step("count quotas at the last slot: webhook endpoints and paylinks, 50 at once", async () => {
      const k = other.keys.liveSecret;
      const endpoint = () =>
        gw.request("POST", "/v1/webhooks/endpoints", {
          key: k,
          body: { url: "http://127.0.0.1:9/hooks", events: ["payin.confirmed"] },
        });
      for (let i = 0; i < 18; i++) assertEquals((await endpoint()).status, 201);
      const hooks = await Promise.all(Array.from({ length: 50 }, endpoint));
      assertEquals(hooks.filter((a) => a.status === 201).length, 2);
      assert(
        hooks.filter((a) => a.status !== 201).every((a) => a.json.error.code === "LIMIT_EXCEEDED_WEBHOOKS"),
      );
      await gw.admin("PUT", `/admin/api/merchants/${other.merchantId}/paylink-limit`, { maxPaylinks: 3 });
      const paylinks = await Promise.all(
        Array.from({ length: 50 }, () =>
          gw.request("POST", "/v1/paylinks", {
            key: k,
            body: { currency: "XOF", products: [{ name: "Pagne", price: "5000" }] },
          })),
      );
      assertEquals(paylinks.filter((a) => a.status === 201).length, 3);
      assert(
        paylinks.filter((a) => a.status !== 201).every((a) =>
          a.json.error.code === "LIMIT_EXCEEDED_PAYLINKS"
        ),
      );
      const quotas = (await limits(k)).quotas;
      assertEquals([quotas.webhookEndpoints.used, quotas.webhookEndpoints.remaining], [20, 0]);
      assertEquals([quotas.paylinks.used, quotas.paylinks.limit], [3, 3]);
      // The first merchant's own quotas are untouched.
      assertEquals((await limits()).quotas.webhookEndpoints.used, 0);
    });
  } finally {
    await gw.close();
  }
});
