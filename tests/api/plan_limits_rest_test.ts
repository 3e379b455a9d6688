// The rest of issue 25's limits through the whole app: daily and monthly caps on pay-in volume (USDT and
// XOF figures apart; a paylink checkout meets the same check), 50 concurrent pay-ins at the last unit of a
// daily cap, the monthly reset on the first (UTC) on a fixed clock, the per-transaction maximum
// (MERCHANT_LIMIT_EXCEEDED) on pay-ins, payouts, XOF withdrawals and bulk items, bulk batches and XOF
// withdrawals counted against the money-out caps, the webhook endpoint limit an operator sets per
// merchant, and the wallet balance cap (BALANCE_CAP_REACHED; a payment that arrives anyway is credited).
import { manualClock } from "../../domain/clock.ts";
import { Decimal } from "../../domain/money.ts";
import { findWallet } from "../../db/ledger.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { creditUsdt, creditWallet, idem, usdtBalance } from "../money_out_helpers.ts";
import { batchOf, createBatch, whitelistMany } from "../bulk_helpers.ts";
import { makePaylink, stockOf } from "../shop_fixture.ts";

async function payinCount(gw: TestGateway, merchantId: string): Promise<number> {
  const rows = await gw.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM payins WHERE merchant_id = $1",
    [merchantId],
  );
  return rows[0].n;
}

async function xofBalance(gw: TestGateway, merchantId: string, rail: "MOMO" | "CARD"): Promise<string> {
  return new Decimal((await findWallet(gw.db, merchantId, false, "XOF", rail))!.balance).toFixed(0);
}

Deno.test("plan limits, the rest: pay-in caps, per-transaction maximum, batches and XOF out, endpoints, balance cap", async (t) => {
  const clock = manualClock(new Date("2026-03-30T10:00:00.000Z"));
  const gw = await startTestGateway({ clock });
  try {
    const m = await gw.createMerchant("Capped Shop");
    const other = await gw.createMerchant("Other Shop");
    const key = m.keys.liveSecret;
    for (const who of [m, other]) {
      await gw.admin("PATCH", `/admin/api/merchants/${who.merchantId}`, {
        rateLimits: {
          "POST /v1/payments": 10_000,
          "POST /v1/payout": 10_000,
          "POST /v1/withdrawals": 10_000,
          default: 100_000,
        },
      });
    }
    const setLimits = async (body: Record<string, unknown>, merchantId = m.merchantId) => {
      const res = await gw.admin("PATCH", `/admin/api/merchants/${merchantId}/plan-limits`, body);
      assertEquals(res.status, 200, res.text);
      return res.json.data;
    };
    const usdtPayin = (amount: string, extra: Record<string, unknown> = {}, k = key) =>
      gw.request("POST", "/v1/payments", { key: k, body: { amount, ...extra } });
    const momoPayin = (amount: string) =>
      gw.request("POST", "/v1/payments", {
        key,
        body: { amount, paymentMethod: "MOBILE_MONEY", customerPhone: "+22670123456" },
      });
    const cardPayin = (amount: string) =>
      gw.request("POST", "/v1/payments", {
        key,
        body: { amount, paymentMethod: "CARD", customerName: "Awa T", customerEmail: "awa@example.com" },
      });
    const limits = async (k = key) => {
      const res = await gw.request("GET", "/v1/merchant/usage/limits", { key: k });
      assertEquals(res.status, 200, res.text);
      return res.json.data;
    };
    // A mobile money destination registered now is out of its 24-hour cooldown by the time it is used.
    const destination = await gw.request("POST", "/v1/merchants/fiat-destinations", {
      key,
      body: { kind: "MOMO", momoOperator: "OPERATOR_B_BF", momoPhone: "+22670123456" },
    });
    assertEquals(destination.status, 201, destination.text);
    const withdrawXof = (amount: string) =>
      gw.request("POST", "/v1/withdrawals", {
        key,
        headers: idem(),
        body: { amount, currency: "XOF", rail: "MOMO", fiatDestinationId: destination.json.data.id },
      });

    await t.step("the generous defaults are shown, pay-in figures included", async () => {
      const data = await limits();
      const plan = data.plan;
      assertEquals([plan.payinDailyUsdt.limit, plan.payinDailyUsdt.unit, plan.payinDailyUsdt.code], [
        "10000000",
        "USDT_TRC20",
        "DAILY_CAP_EXCEEDED",
      ]);
      assertEquals([plan.payinMonthlyXof.limit, plan.payinMonthlyXof.unit, plan.payinMonthlyXof.code], [
        "100000000000",
        "XOF",
        "MONTHLY_LIMIT_EXCEEDED",
      ]);
      assertEquals(plan.moneyOutDailyXof.limit, "100000000");
      assertEquals(data.ceilings.transactionMaxUsdt, {
        limit: "10000000",
        currency: "USDT_TRC20",
        per: "transaction",
        code: "MERCHANT_LIMIT_EXCEEDED",
      });
      assertEquals(
        [
          data.ceilings.balanceCapUsdt.limit,
          data.ceilings.balanceCapUsdt.used,
          data.ceilings.balanceCapUsdt.reached,
        ],
        ["1000000000000", "0", false],
      );
      assertEquals(data.quotas.webhookEndpoints.limit, 20);
    });

    await t.step(
      "50 concurrent USDT pay-ins of 10 with 90 of a 100 daily cap left: exactly 9 created",
      async () => {
        await setLimits({ payinDailyUsdt: "100" });
        assertEquals((await usdtPayin("10")).status, 201);
        const answers = await Promise.all(Array.from({ length: 50 }, () => usdtPayin("10")));
        assert(
          answers.every((a) => a.status === 201 || a.status === 403),
          answers.map((a) => a.status).join(),
        );
        const created = answers.filter((a) => a.status === 201).length;
        const capped = answers.filter((a) => a.json?.error?.code === "DAILY_CAP_EXCEEDED").length;
        assertEquals([created, capped], [9, 41]);
        assertEquals(await payinCount(gw, m.merchantId), 10);
        const refused = answers.find((a) => a.status === 403)!;
        assertMatch(refused.json.error.message, /100; 0 left until 2026-03-31T00:00:00.000Z/);
        const plan = (await limits()).plan.payinDailyUsdt;
        assertEquals([plan.limit, plan.used, plan.remaining], ["100", "100", "0"]);
        // The other merchant's pay-ins are not counted here, nor capped by this merchant's limit.
        assertEquals((await usdtPayin("500", {}, other.keys.liveSecret)).status, 201);
        assertEquals((await limits()).plan.payinDailyUsdt.used, "100");
      },
    );

    await t.step(
      "the first pay-ins of a period race to make its counters: still exactly what fits",
      async () => {
        const fresh = await gw.createMerchant("Fresh Shop");
        await gw.admin("PATCH", `/admin/api/merchants/${fresh.merchantId}`, {
          rateLimits: { "POST /v1/payments": 10_000, default: 100_000 },
        });
        await setLimits({ payinDailyUsdt: "45" }, fresh.merchantId);
        const answers = await Promise.all(
          Array.from({ length: 50 }, () => usdtPayin("5", {}, fresh.keys.liveSecret)),
        );
        assert(
          answers.every((a) => a.status === 201 || a.status === 403),
          answers.map((a) => a.status).join(),
        );
        assertEquals(answers.filter((a) => a.status === 201).length, 9);
        assertEquals(await payinCount(gw, fresh.merchantId), 9);
        assertEquals((await limits(fresh.keys.liveSecret)).plan.payinDailyUsdt.used, "45");
      },
    );

    await t.step("a pay-in refused after its count (reused externalRef) gives the count back", async () => {
      await setLimits({ payinDailyUsdt: "120" });
      assertEquals((await usdtPayin("10", { externalRef: "order-1" })).status, 201);
      const dup = await usdtPayin("10", { externalRef: "order-1" });
      assertEquals(dup.json.error.code, "DUPLICATE_EXTERNAL_REF");
      assertEquals((await limits()).plan.payinDailyUsdt.used, "110");
      assertEquals((await usdtPayin("10")).status, 201, "the last 10 are still there");
      assertEquals((await usdtPayin("0.000001")).json.error.code, "AMOUNT_TOO_LOW");
      const over = await usdtPayin("5");
      assertEquals([over.status, over.json.error.code], [403, "DAILY_CAP_EXCEEDED"]);
    });

    await t.step("the monthly cap on a fixed clock: refused until the first of the month (UTC)", async () => {
      await setLimits({ payinDailyUsdt: null, payinMonthlyUsdt: "150" });
      assertEquals((await limits()).plan.payinMonthlyUsdt.used, "120");
      assertEquals((await usdtPayin("30")).status, 201);
      const over = await usdtPayin("5");
      assertEquals([over.status, over.json.error.code], [403, "MONTHLY_LIMIT_EXCEEDED"]);
      clock.set(new Date("2026-03-31T23:59:59.999Z"));
      assertEquals(
        (await usdtPayin("5")).json.error.code,
        "MONTHLY_LIMIT_EXCEEDED",
        "a new day is not enough",
      );
      assertEquals((await limits()).plan.payinMonthlyUsdt.resetsAt, "2026-04-01T00:00:00.000Z");
      clock.set(new Date("2026-04-01T00:00:00.000Z"));
      assertEquals((await usdtPayin("5")).status, 201, "the first of the month resets it");
      const month = (await limits()).plan.payinMonthlyUsdt;
      assertEquals([month.used, month.remaining, month.resetsAt], ["5", "145", "2026-05-01T00:00:00.000Z"]);
    });

    await t.step("XOF pay-ins count their own figure; a paylink checkout meets the same check", async () => {
      await setLimits({ payinDailyXof: "10000", payinDailyUsdt: "5" });
      assertEquals((await momoPayin("6000")).status, 201);
      const card = await cardPayin("5000");
      assertEquals([card.status, card.json.error.code], [403, "DAILY_CAP_EXCEEDED"]);
      assertEquals((await cardPayin("4000")).status, 201);
      const plan = (await limits()).plan;
      assertEquals([plan.payinDailyXof.used, plan.payinDailyUsdt.used], ["10000", "5"]);

      const before = await payinCount(gw, m.merchantId);
      const usdtShop = await makePaylink(gw, m.merchantId, {
        isSandbox: false,
        currency: "USDT_TRC20",
        methods: ["USDT_TRC20"],
        products: [{ name: "Pagne wax", price: "10", stockEnabled: true, stockQty: 5 }],
      });
      const checkout = await gw.request("POST", `/v1/pay/link/${usdtShop.paylink.slug}/checkout`, {
        body: { items: [{ productId: usdtShop.products[0].id, quantity: 1 }], paymentMethod: "USDT_TRC20" },
      });
      assertEquals([checkout.status, checkout.json.error.code], [403, "DAILY_CAP_EXCEEDED"], checkout.text);
      assertEquals(await stockOf(gw, usdtShop.products[0].id), 5, "no stock held by the refused checkout");
      const xofShop = await makePaylink(gw, m.merchantId, {
        isSandbox: false,
        currency: "XOF",
        methods: ["MOBILE_MONEY"],
        products: [{ name: "Beurre de karité", price: "2000" }],
      });
      const momoCheckout = await gw.request("POST", `/v1/pay/link/${xofShop.paylink.slug}/checkout`, {
        body: {
          items: [{ productId: xofShop.products[0].id, quantity: 1 }],
          paymentMethod: "MOBILE_MONEY",
          customerPhone: "+22670123456",
        },
      });
      assertEquals(momoCheckout.json?.error?.code, "DAILY_CAP_EXCEEDED", momoCheckout.text);
      assertEquals(await payinCount(gw, m.merchantId), before, "no pay-in created by the refusals");
      await setLimits({ payinDailyXof: null, payinDailyUsdt: null, payinMonthlyUsdt: null });
      const paid = await gw.request("POST", `/v1/pay/link/${usdtShop.paylink.slug}/checkout`, {
        body: { items: [{ productId: usdtShop.products[0].id, quantity: 1 }], paymentMethod: "USDT_TRC20" },
      });
      assertEquals(paid.status, 201, paid.text);
      assertEquals((await limits()).plan.payinDailyUsdt.used, "15", "the checkout's pay-in is counted");
    });

    await t.step(
      "MERCHANT_LIMIT_EXCEEDED: one pay-in, payout, XOF withdrawal or bulk item past the maximum",
      async () => {
        await setLimits({ transactionMaxUsdt: "50", transactionMaxXof: "20000" });
        const big = await usdtPayin("50.000001");
        assertEquals([big.status, big.json.error.code], [403, "MERCHANT_LIMIT_EXCEEDED"]);
        assertMatch(big.json.error.message, /50 USDT/);
        assertEquals((await momoPayin("20001")).json.error.code, "MERCHANT_LIMIT_EXCEEDED");
        const counted = (await limits()).plan.payinDailyUsdt.used;
        assertEquals((await usdtPayin("50")).status, 201);
        assertEquals(
          new Decimal((await limits()).plan.payinDailyUsdt.used).minus(counted).toFixed(),
          "50",
          "a refused pay-in counted nothing",
        );

        await creditUsdt(gw, m.merchantId, false, "1000");
        const [dest] = await whitelistMany(gw, key, 1);
        const payout = (amount: string) =>
          gw.request("POST", "/v1/payout", {
            key,
            headers: idem(),
            body: { amount, destinationAddress: dest },
          });
        const tooBig = await payout("60");
        assertEquals([tooBig.status, tooBig.json.error.code], [403, "MERCHANT_LIMIT_EXCEEDED"]);
        assertEquals(await usdtBalance(gw, m.merchantId, false), "1000.000000", "nothing reserved");
        assertEquals((await payout("50")).status, 201);

        await creditWallet(gw, m.merchantId, false, "MOMO", "100000");
        const xof = await withdrawXof("25000");
        assertEquals([xof.status, xof.json.error.code], [403, "MERCHANT_LIMIT_EXCEEDED"], xof.text);
        assertEquals(await xofBalance(gw, m.merchantId, "MOMO"), "100000");

        const batch = await createBatch(gw, key, "USDT_TRC20");
        const addresses = await whitelistMany(gw, key, 2);
        await gw.request("POST", `/v1/bulk-payments/${batch}/items`, {
          key,
          body: {
            items: [{ walletAddress: addresses[0], amount: "10" }, {
              walletAddress: addresses[1],
              amount: "51",
            }],
          },
        });
        const validate = await gw.request("POST", `/v1/bulk-payments/${batch}/validate`, { key });
        assertEquals([validate.status, validate.json.error.code], [403, "MERCHANT_LIMIT_EXCEEDED"]);
        assertEquals(validate.json.error.details[0].line, 2);
        assertEquals((await batchOf(gw, key, batch)).status, "DRAFT");
        const shown = (await limits()).ceilings;
        assertEquals([shown.transactionMaxUsdt.limit, shown.transactionMaxXof.limit], ["50", "20000"]);
        await setLimits({ transactionMaxUsdt: null, transactionMaxXof: null });
        assertEquals((await limits()).ceilings.transactionMaxUsdt.limit, "10000000");
      },
    );

    await t.step(
      "bulk batches (at execute, their items' total) and XOF withdrawals count against money-out caps",
      async () => {
        const usedOut = (await limits()).plan.moneyOutDailyUsdt.used;
        assertEquals(usedOut, "50");
        await setLimits({ moneyOutDailyUsdt: "80" });
        const addresses = await whitelistMany(gw, key, 2);
        const batch = await createBatch(gw, key, "USDT_TRC20");
        await gw.request("POST", `/v1/bulk-payments/${batch}/items`, {
          key,
          body: { items: addresses.map((walletAddress) => ({ walletAddress, amount: "20" })) },
        });
        assertEquals((await gw.request("POST", `/v1/bulk-payments/${batch}/validate`, { key })).status, 200);
        const balance = await usdtBalance(gw, m.merchantId, false);
        const capped = await gw.request("POST", `/v1/bulk-payments/${batch}/execute`, {
          key,
          headers: idem(),
        });
        assertEquals([capped.status, capped.json.error.code], [403, "DAILY_CAP_EXCEEDED"], capped.text);
        assertEquals(await usdtBalance(gw, m.merchantId, false), balance, "nothing debited");
        assertEquals((await batchOf(gw, key, batch)).status, "VALIDATED");
        assertEquals((await limits()).plan.moneyOutDailyUsdt.used, "50", "the refusal counted nothing");
        await setLimits({ moneyOutDailyUsdt: "90" });
        const executed = await gw.request("POST", `/v1/bulk-payments/${batch}/execute`, {
          key,
          headers: idem(),
        });
        assertEquals(executed.status, 202, executed.text);
        const out = (await limits()).plan;
        assertEquals([out.moneyOutDailyUsdt.used, out.moneyOutMonthlyUsdt.used], ["90", "90"]);

        await setLimits({ moneyOutDailyXof: "15000" });
        assertEquals((await withdrawXof("10000")).status, 201);
        const over = await withdrawXof("6000");
        assertEquals([over.status, over.json.error.code], [403, "DAILY_CAP_EXCEEDED"]);
        assertEquals(await xofBalance(gw, m.merchantId, "MOMO"), "90000");
        const xofOut = (await limits()).plan.moneyOutDailyXof;
        assertEquals([xofOut.used, xofOut.remaining, xofOut.unit], ["10000", "5000", "XOF"]);
        assertEquals((await limits()).plan.moneyOutDailyUsdt.used, "90", "XOF is its own figure");
      },
    );

    await t.step("the webhook endpoint limit, set per merchant by an operator", async () => {
      const endpoint = () =>
        gw.request("POST", "/v1/webhooks/endpoints", {
          key,
          body: { url: "http://127.0.0.1:9/hooks", events: ["payin.confirmed"] },
        });
      assertEquals((await setLimits({ webhookEndpoints: "2" })).webhookEndpoints, "2");
      const answers = await Promise.all(Array.from({ length: 10 }, endpoint));
      assertEquals(answers.filter((a) => a.status === 201).length, 2);
      const refused = answers.find((a) => a.status !== 201)!;
      assertEquals(refused.json.error.code, "LIMIT_EXCEEDED_WEBHOOKS");
      assertMatch(refused.json.error.message, /At most 2 webhook endpoints/);
      const quota = (await limits()).quotas.webhookEndpoints;
      assertEquals([quota.limit, quota.used, quota.remaining], [2, 2, 0]);
      assertEquals((await limits(other.keys.liveSecret)).quotas.webhookEndpoints.limit, 20);
      assertEquals((await setLimits({ webhookEndpoints: null })).webhookEndpoints, "20");
      assertEquals((await endpoint()).status, 201);
    });

    await t.step("bad input to the operator's limits: a clear 400 or 404, never a 500", async () => {
      const path = `/admin/api/merchants/${m.merchantId}/plan-limits`;
      const bodies: unknown[] = [
        { webhookEndpoints: "0" },
        { webhookEndpoints: "1001" },
        { webhookEndpoints: 5 },
        { transactionMaxXof: "10.5" },
        { transactionMaxUsdt: "1\u0000" },
        { balanceCapUsdt: "\ud800" },
        { payinDailyUsdt: "9".repeat(100_000) },
        { payinMonthlyXof: ["1"] },
        { balanceCapXof: "-1" },
        "not an object",
      ];
      for (const body of bodies) {
        const res = await gw.admin("PATCH", path, body);
        assertEquals(res.status, 400, `${JSON.stringify(body).slice(0, 60)} -> ${res.text.slice(0, 200)}`);
      }
      for (const id of ["mch_x", `mch_${"0".repeat(26)}`, "mch_\u0000"]) {
        const res = await gw.admin("PATCH", `/admin/api/merchants/${encodeURIComponent(id)}/plan-limits`, {
          balanceCapUsdt: "1",
        });
        assert([400, 404].includes(res.status), res.text);
      }
      // A merchant's key cannot set its own limits.
      const own = await gw.request("PATCH", path, { key, body: { balanceCapUsdt: "1" } });
      assert(own.status === 401 || own.status === 403, own.text);
      assertEquals((await limits()).ceilings.balanceCapUsdt.limit, "1000000000000");
    });

    await t.step(
      "BALANCE_CAP_REACHED: new pay-ins refused; a payment that arrives anyway is credited",
      async () => {
        const sk = m.keys.testSecret;
        await setLimits({ balanceCapUsdt: "100" });
        const sandboxPayin = (amount: string) =>
          gw.request("POST", "/v1/payments?sandbox=true", { key: sk, body: { amount } });
        const tooMuch = await sandboxPayin("100.000001");
        assertEquals([tooMuch.status, tooMuch.json.error.code], [403, "BALANCE_CAP_REACHED"]);
        // Two pay-ins created while the wallet is empty, each within the cap alone; both are paid.
        const first = await sandboxPayin("60");
        const second = await sandboxPayin("50");
        assertEquals([first.status, second.status], [201, 201]);
        for (const p of [first, second]) {
          const sim = await gw.request("POST", `/v1/sandbox/payments/${p.json.data.transactionId}/simulate`, {
            key: sk,
          });
          assertEquals(sim.status, 200, sim.text);
        }
        const balance = await usdtBalance(gw, m.merchantId, true);
        assert(new Decimal(balance).greaterThan(100), `both credited past the cap: ${balance}`);
        const cap = (await limits(sk)).ceilings.balanceCapUsdt;
        assertEquals([cap.limit, cap.used, cap.remaining, cap.reached], [
          "100",
          new Decimal(balance).toFixed(),
          "0",
          true,
        ]);
        const refused = await sandboxPayin("5");
        assertEquals([refused.status, refused.json.error.code], [403, "BALANCE_CAP_REACHED"]);
        assertMatch(refused.json.error.message, /balance cap of 100 USDT/);
        // Each mode's wallet is measured apart: the live one (about 900 USDT) is past the cap too, and the
        // other merchant, without a cap of its own, is not concerned.
        const live = await limits();
        assertEquals([live.ceilings.balanceCapUsdt.used, live.ceilings.balanceCapUsdt.reached], [
          new Decimal(await usdtBalance(gw, m.merchantId, false)).toFixed(),
          true,
        ]);
        assertEquals((await usdtPayin("5")).json.error.code, "BALANCE_CAP_REACHED");
        assertEquals((await usdtPayin("5", {}, other.keys.liveSecret)).status, 201);
        await setLimits({ balanceCapUsdt: null });
        assertEquals((await sandboxPayin("5")).status, 201, "back to the default cap");
      },
    );
  } finally {
    await gw.close();
  }
});
