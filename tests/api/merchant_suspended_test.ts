// A merchant that is not ACTIVE takes no money (issue 18, item 6): its paylink page, a waiting pay-in's
// checkout and its subscription renewal page say it is unavailable (403 suspended, 410 closed); checkout,
// rate lock, promo preview and renewals refuse with MERCHANT_STATUS_INVALID / ACCOUNT_CLOSED and create
// nothing; a USDT pay-in created before the suspension and paid after it is still credited, and held for
// review where the operator sees it.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { manualClock } from "../../domain/clock.ts";
import { renewDueSubscriptions, startRenewal } from "../../domain/subscriptions/renewals.ts";
import { keyCacheOf } from "../../domain/keys/key_cache.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { usdtBalance } from "../money_out_helpers.ts";
import { makePaylink } from "../shop_fixture.ts";
import { makeRecurringPaylink, paidCheckout, renewalsOf } from "../subscription_fixture.ts";

const DAY = 24 * 3_600_000;
const units = (usdt: string) => BigInt(Math.round(Number(usdt) * 1e6));

async function count(gw: TestGateway, table: "payins" | "paylink_orders" | "paylink_rate_locks") {
  return (await gw.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n;
}

Deno.test("a suspended or closed merchant takes no money; a late payment is credited and held", async (t) => {
  const clock = manualClock(new Date());
  const gw = await startTestGateway({ clock });
  const scan = () => {
    clock.advance(10);
    return scanChain(gw.deps);
  };
  try {
    const m = await gw.createMerchant("Boutique Awa");
    const shop = await makePaylink(gw, m.merchantId, {
      isSandbox: false,
      currency: "USDT_TRC20",
      methods: ["USDT_TRC20", "MOBILE_MONEY"],
      products: [{ name: "Pagne wax", price: "10", stockEnabled: true, stockQty: 50 }],
      promos: [{ code: "BIENVENUE", type: "PERCENT", value: "10" }],
    });
    const slug = shop.paylink.slug;
    const productId = shop.products[0].id;
    const items = [{ productId, quantity: 1 }];
    const checkout = () =>
      gw.request("POST", `/v1/pay/link/${slug}/checkout`, { body: { items, paymentMethod: "USDT_TRC20" } });
    await scan(); // the scanner follows from the head

    // Before the suspension: a customer starts a USDT checkout and has not paid yet.
    const before = await checkout();
    assertEquals(before.status, 201, before.text);
    const early = before.json.data;
    // And a subscriber's renewal is waiting on its page.
    const sub = await gw.createMerchant("Ferme Awa");
    const recurring = await makeRecurringPaylink(gw, sub.merchantId);
    await paidCheckout(gw, sub.keys.testSecret, recurring.paylink.slug, recurring.products[0].id);
    const [{ id: subscriptionId }] = await gw.db.query<{ id: string }>(
      "SELECT id FROM subscriptions WHERE merchant_id = $1",
      [sub.merchantId],
    );

    for (const merchantId of [m.merchantId, sub.merchantId]) {
      const res = await gw.admin("PATCH", `/admin/api/merchants/${merchantId}`, { status: "SUSPENDED" });
      assertEquals(res.status, 200, res.text);
    }

    await t.step(
      "the paylink page says the merchant is unavailable, in French and English (403)",
      async () => {
        const fr = await gw.request("GET", `/pay/link/${slug}`);
        assertEquals(fr.status, 403);
        assertMatch(fr.text, /Ce marchand n'accepte pas de paiements pour le moment/);
        assert(!fr.text.includes('id="cart"'), "no cart form to pay with");
        assert(!fr.text.includes("Pagne wax"), "nothing offered for sale");
        const en = await gw.request("GET", `/pay/link/${slug}?lang=en`);
        assertEquals(en.status, 403);
        assertMatch(en.text, /This merchant is not taking payments right now/);
      },
    );

    await t.step("checkout, rate lock and promo preview refuse with MERCHANT_STATUS_INVALID", async () => {
      const payins = await count(gw, "payins");
      const orders = await count(gw, "paylink_orders");
      const locks = await count(gw, "paylink_rate_locks");
      const answers = [
        await checkout(),
        await gw.request("POST", `/v1/paylinks/${slug}/rate-lock`, { body: { paymentMethod: "USDT_TRC20" } }),
        await gw.request("POST", `/v1/pay/link/${slug}/apply-promo`, { body: { code: "BIENVENUE", items } }),
      ];
      for (const res of answers) {
        assertEquals(res.status, 403, res.text);
        assertEquals(res.json.error.code, "MERCHANT_STATUS_INVALID");
      }
      assertEquals(await count(gw, "payins"), payins);
      assertEquals(await count(gw, "paylink_orders"), orders);
      assertEquals(await count(gw, "paylink_rate_locks"), locks);
    });

    await t.step(
      "the waiting pay-in's checkout shows no address to pay, only that it is unavailable",
      async () => {
        const page = await gw.request("GET", `/checkout/${early.transactionId}?lang=en`);
        assertEquals(page.status, 403);
        assertMatch(page.text, /Payment unavailable/);
        assertMatch(page.text, /data-merchant>Boutique Awa</);
        assert(!page.text.includes(early.address), "the deposit address is not shown");
        assert(!page.text.includes("data:image/png"), "no QR code");
      },
    );

    await t.step(
      "paid after the suspension, the pay-in is credited as always and held for review",
      async () => {
        const wallet = await usdtBalance(gw, m.merchantId, false);
        gw.devnet.transferUsdt(early.address, units(early.amountExpected));
        gw.devnet.mine(5);
        await scan();
        const [payin] = await gw.db.query<{ status: string; net_amount: string }>(
          "SELECT status, net_amount::text FROM payins WHERE id = $1",
          [early.transactionId],
        );
        assertEquals(payin.status, "CONFIRMED");
        const credited = (Number(await usdtBalance(gw, m.merchantId, false)) - Number(wallet)).toFixed(6);
        assertEquals(credited, Number(payin.net_amount).toFixed(6));
        assert(Number(credited) > 0);
        const [order] = await gw.db.query<{ status: string; paid_at: Date | null }>(
          "SELECT status, paid_at FROM paylink_orders WHERE id = $1",
          [early.orderId],
        );
        assertEquals(order.status, "CONFIRMED");
        assert(order.paid_at, "the order is paid");
        const held = await gw.admin("GET", `/admin/api/payin-holds?merchantId=${m.merchantId}&open=true`);
        assertEquals(held.status, 200, held.text);
        assertEquals(held.json.data.items.length, 1);
        const item = held.json.data.items[0];
        assertEquals(item.transactionId, early.transactionId);
        assertEquals(item.reason, "MERCHANT_SUSPENDED");
        assertEquals(item.status, "CONFIRMED");
        assertEquals(item.netAmount, Number(payin.net_amount).toFixed(6));
        assertEquals(item.reviewedAt, null);
        assert(
          gw.logLines.some((l) => JSON.stringify(l).includes("held for review")),
          "the operator's log says so",
        );
        // The customer's page shows the payment went through.
        assertEquals((await gw.request("GET", `/checkout/${early.transactionId}`)).status, 200);
      },
    );

    await t.step("the operator marks the hold reviewed, once; bad ids are 404", async () => {
      const path = `/admin/api/payin-holds/${early.transactionId}/review`;
      const done = await gw.admin("POST", path, { reviewer: "ops-awa", note: "customer paid before" });
      assertEquals(done.status, 200, done.text);
      assertEquals(done.json.data.reviewedBy, "ops-awa");
      assertEquals((await gw.admin("POST", path, { reviewer: "ops-awa" })).json.error.code, "INVALID_STATE");
      assertEquals(
        (await gw.admin("POST", "/admin/api/payin-holds/pay_x%00/review", { reviewer: "a" })).status,
        404,
      );
      assertEquals((await gw.admin("POST", path, { reviewer: "" })).status, 400);
      const open = await gw.admin("GET", `/admin/api/payin-holds?merchantId=${m.merchantId}&open=true`);
      assertEquals(open.json.data.items.length, 0);
      const noToken = await gw.request("GET", "/admin/api/payin-holds");
      assertEquals(noToken.status, 401);
    });

    await t.step("no renewal starts while suspended; the renewal page offers nothing to pay", async () => {
      clock.advance(32 * DAY);
      assertEquals(await renewDueSubscriptions(gw.deps), 0);
      assertEquals(await startRenewal(gw.deps, subscriptionId, 2), undefined);
      assertEquals((await renewalsOf(gw, subscriptionId)).length, 0);
      // Back to ACTIVE, the due period starts; suspended again, its page says unavailable.
      await gw.admin("PATCH", `/admin/api/merchants/${sub.merchantId}`, { status: "ACTIVE" });
      assertEquals(await renewDueSubscriptions(gw.deps), 1);
      const [renewal] = await renewalsOf(gw, subscriptionId);
      await gw.admin("PATCH", `/admin/api/merchants/${sub.merchantId}`, { status: "SUSPENDED" });
      const page = await gw.request("GET", `/subscriptions/renewals/${renewal.id}?lang=en`);
      assertEquals(page.status, 403);
      assertMatch(page.text, /Payment unavailable/);
      assert(!page.text.includes('name="paymentMethod"'), "no rail to pick");
      const fr = await gw.request("GET", `/subscriptions/renewals/${renewal.id}`);
      assertMatch(fr.text, /Paiement indisponible/);
      const payins = await count(gw, "payins");
      const pay = await gw.app.request(`/subscriptions/renewals/${renewal.id}/pay?lang=en`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "paymentMethod=MOBILE_MONEY&customerPhone=%2B22670123456",
      });
      assertEquals(pay.status, 403);
      await pay.body?.cancel();
      assertEquals(await count(gw, "payins"), payins);
    });

    await t.step("closing is refused while the merchant's live money is not paid out", async () => {
      const res = await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { status: "CLOSED" });
      assertEquals(res.status, 409);
      assertEquals(res.json.error.code, "CONFLICT");
      assertMatch(JSON.stringify(res.json.error.details), /live balance/);
      const [{ status }] = await gw.db.query<{ status: string }>(
        "SELECT status FROM merchants WHERE id = $1",
        [
          m.merchantId,
        ],
      );
      assert(status !== "CLOSED", "nothing changed");
    });

    await t.step("a closed merchant: ACCOUNT_CLOSED, and its pages answer 410", async () => {
      // As if the operator had paid its balance out: closed where the guard above would let it be.
      await gw.db.query("UPDATE merchants SET status = 'CLOSED' WHERE id = $1", [m.merchantId]);
      keyCacheOf(gw.deps).forgetMerchant(m.merchantId);
      const res = await checkout();
      assertEquals(res.status, 403);
      assertEquals(res.json.error.code, "ACCOUNT_CLOSED");
      assertEquals((await gw.request("GET", `/pay/link/${slug}`)).status, 410);
    });

    await t.step("back to ACTIVE, the shop sells again", async () => {
      await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { status: "ACTIVE" });
      const page = await gw.request("GET", `/pay/link/${slug}`);
      assertEquals(page.status, 200);
      assertMatch(page.text, /id="cart"/);
      assertEquals((await checkout()).status, 201);
    });
  } finally {
    await gw.close();
  }
});
