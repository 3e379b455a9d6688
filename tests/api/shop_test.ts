// The public paylink routes (issue 12, items 6 and 8): checkout creating the order and its pay-in in one
// transaction, rate locks, promo previews with the specification's four errors, orders following their
// pay-in (paid, expired: stock back), the merchant's orders, CSV export and stats, hostile input, and 50
// concurrent checkouts on a stock of 10.
import { manualClock } from "../../domain/clock.ts";
import { expireDuePayins } from "../../domain/payins/chain_events.ts";
import { Decimal } from "../../domain/money.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { makePaylink, stockOf } from "../shop_fixture.ts";

const DIGITAL_URL = "https://files.example/ebook-secret-7f3a.pdf";

async function setup(gw: TestGateway) {
  const m = await gw.createMerchant("Awa Diallo SARL");
  const shop = await makePaylink(gw, m.merchantId, {
    currency: "XOF",
    products: [
      { name: "Pagne wax", price: "5000", stockEnabled: true, stockQty: 10, lowStockThreshold: 2 },
      { name: "Bracelet", price: "1500" },
      { name: "Guide PDF", price: "2000", productType: "DIGITAL", digitalUrl: DIGITAL_URL },
    ],
    promos: [
      { code: "BIENVENUE", type: "PERCENT", value: "10" },
      { code: "OLD", type: "FIXED", value: "500", expiresAt: new Date(Date.now() - 60_000) },
      { code: "ONCE", type: "FIXED", value: "1000", maxUses: 1 },
      { code: "OFF", type: "PERCENT", value: "5" },
      { code: "HUGE", type: "FIXED", value: "999999" },
    ],
  });
  await gw.db.query("UPDATE paylink_promo_codes SET is_active = false WHERE code = 'OFF'");
  return { m, ...shop, slug: shop.paylink.slug };
}

Deno.test("public paylink checkout, rate locks, promo codes, orders", async (t) => {
  const clock = manualClock(new Date());
  const gw = await startTestGateway({ clock });
  try {
    const s = await setup(gw);
    const [pagne, bracelet, guide] = s.products;
    const key = s.m.keys.testSecret;
    const post = (path: string, body: unknown) => gw.request("POST", path, { body });
    // Each checkout is another customer (another client address): one address may hold only a share.
    let customers = 0;
    const checkout = (body: Record<string, unknown>) =>
      gw.request("POST", `/v1/pay/link/${s.slug}/checkout`, { body, clientAddress: `10.0.0.${++customers}` });

    await t.step("apply-promo: a preview on the cart, and the four errors exactly", async () => {
      let res = await post(`/v1/pay/link/${s.slug}/apply-promo`, {
        code: "bienvenue",
        items: [{ productId: pagne.id, quantity: 2 }, { productId: bracelet.id, quantity: 1 }],
      });
      assertEquals(res.status, 200, res.text);
      assertEquals(res.json.data, {
        code: "BIENVENUE",
        discountType: "PERCENT",
        discountValue: "10",
        currency: "XOF",
        subtotal: "11500",
        discount: "1150",
        total: "10350",
      });
      for (
        const [code, error] of [
          ["NOPE", "PROMO_CODE_INVALID"],
          ["OFF", "PROMO_CODE_INACTIVE"],
          ["OLD", "PROMO_CODE_EXPIRED"],
        ]
      ) {
        res = await post(`/v1/pay/link/${s.slug}/apply-promo`, { code });
        assertEquals(res.status, 400);
        assertEquals(res.json.error.code, error);
      }
      // A code making the total negative is refused with a clear code, not clamped.
      res = await post(`/v1/pay/link/${s.slug}/apply-promo`, {
        code: "HUGE",
        items: [{ productId: bracelet.id, quantity: 1 }],
      });
      assertEquals(res.status, 400);
      assertEquals(res.json.error.code, "VALIDATION_ERROR");
    });

    let firstOrder = "";
    let firstPayin = "";
    await t.step("checkout in USDT: order, pay-in, converted at the live rate, stock held", async () => {
      const rate = new Decimal(
        (await post(`/v1/paylinks/${s.slug}/rate-lock`, { paymentMethod: "USDT_TRC20" }))
          .json.data.rate,
      );
      const res = await checkout({
        items: [{ productId: pagne.id, quantity: 2 }, { productId: guide.id, quantity: 1 }],
        paymentMethod: "USDT_TRC20",
        promoCode: "once",
        customerEmail: "client@example.com",
        customerName: "Client",
      });
      assertEquals(res.status, 201, res.text);
      const d = res.json.data;
      assertMatch(d.orderId, /^ord_/);
      assertMatch(d.transactionId, /^pay_/);
      assertMatch(d.address, /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
      // 2 × 5000 + 2000 - 1000 = 11000 XOF, in USDT rounded up to 6 decimals.
      const expected = new Decimal(11000).times(rate).toDecimalPlaces(6, Decimal.ROUND_UP);
      assertEquals(new Decimal(d.amount).toFixed(6), expected.toFixed(6));
      assertEquals(d.currency, "USDT_TRC20");
      assertEquals(d.checkoutUrl.endsWith(`/checkout/${d.transactionId}`), true);
      assert(!res.text.includes(DIGITAL_URL), "no digital link before payment");
      assertEquals(await stockOf(gw, pagne.id), 8);
      firstOrder = d.orderId;
      firstPayin = d.transactionId;
      // The pay-in's page says whom and what for.
      const page = (await gw.request("GET", `/checkout/${d.transactionId}`)).text;
      assertMatch(page, /data-merchant>Awa Diallo SARL</);
      assertMatch(page, /data-ref>Boutique Awa: [^<]*2 × Pagne wax/);
      assertMatch(page, /data-ref>Boutique Awa: [^<]*1 × Guide PDF/);
      assert(!page.includes(DIGITAL_URL));
      // The single-use code is now used up, for preview and checkout alike.
      const again = await post(`/v1/pay/link/${s.slug}/apply-promo`, { code: "ONCE" });
      assertEquals(again.json.error.code, "PROMO_CODE_USAGE_LIMIT_REACHED");
      const second = await checkout({
        items: [{ productId: bracelet.id, quantity: 4 }],
        promoCode: "ONCE",
        paymentMethod: "USDT_TRC20",
      });
      assertEquals(second.status, 400);
      assertEquals(second.json.error.code, "PROMO_CODE_USAGE_LIMIT_REACHED");
    });

    await t.step("digital products need the customer's e-mail", async () => {
      const res = await checkout({
        items: [{ productId: guide.id, quantity: 3 }],
        paymentMethod: "USDT_TRC20",
      });
      assertEquals(res.status, 400);
      assertEquals(res.json.error.code, "VALIDATION_ERROR");
      assertEquals(res.json.error.details[0].field, "customerEmail");
    });

    await t.step(
      "paid: the order follows its pay-in; the digital link reaches the merchant and the page",
      async () => {
        const res = await gw.request("POST", `/v1/sandbox/payments/${firstPayin}/simulate`, { key });
        assertEquals(res.status, 200, res.text);
        const orders = await gw.request("GET", `/v1/paylinks/${s.paylink.id}/orders`, { key });
        assertEquals(orders.status, 200, orders.text);
        const o = orders.json.data.items.find((x: { id: string }) => x.id === firstOrder);
        assertEquals(o.status, "CONFIRMED");
        assert(o.paidAt);
        assertEquals(o.customerEmail, "client@example.com");
        assertEquals(o.items.find((i: { name: string }) => i.name === "Guide PDF").digitalUrl, DIGITAL_URL);
        assertEquals(o.items.find((i: { name: string }) => i.name === "Pagne wax").digitalUrl, null);
        assertEquals(await stockOf(gw, pagne.id), 8);
        const page = (await gw.request("GET", `/checkout/${firstPayin}`)).text;
        assert(page.includes(DIGITAL_URL), "the success page reveals the paid download");
      },
    );

    await t.step("rate locks: used once, expire after 5 minutes, unknown or another paylink's", async () => {
      const lock = await post(`/v1/paylinks/${s.slug}/rate-lock`, { paymentMethod: "USDT_TRC20" });
      assertEquals(lock.status, 201, lock.text);
      const l = lock.json.data;
      assertEquals(new Date(l.expiresAt).getTime() - clock.now().getTime(), 300_000);
      // The live rate moves; the lock's price holds.
      gw.rates.set(new Decimal(gw.deps.config.fx.fixedUsdtEur).times(1.1).toFixed(6));
      const body = { items: [{ productId: bracelet.id, quantity: 4 }], paymentMethod: "USDT_TRC20" };
      let res = await checkout({ ...body, rateLockId: l.rateLockId });
      assertEquals(res.status, 201, res.text);
      assertEquals(
        new Decimal(res.json.data.amount).toFixed(6),
        new Decimal(6000).times(l.rate).toDecimalPlaces(6, Decimal.ROUND_UP).toFixed(6),
      );
      const o = (await gw.request("GET", `/v1/paylinks/${s.paylink.id}/orders`, { key })).json.data.items
        .find((x: { id: string }) => x.id === res.json.data.orderId);
      assertEquals(o.fxRate, new Decimal(l.rate).toFixed());
      res = await checkout({ ...body, rateLockId: l.rateLockId });
      assertEquals(res.status, 409);
      assertEquals(res.json.error.code, "RATE_LOCK_ALREADY_USED");
      // A lock for another rail is refused, and the refusal leaves it unused.
      const momoLock =
        (await post(`/v1/paylinks/${s.slug}/rate-lock`, { paymentMethod: "MOBILE_MONEY" })).json
          .data;
      res = await checkout({ ...body, rateLockId: momoLock.rateLockId });
      assertEquals(res.status, 400);
      const stale =
        (await post(`/v1/paylinks/${s.slug}/rate-lock`, { paymentMethod: "USDT_TRC20" })).json.data;
      clock.advance(301_000);
      res = await checkout({ ...body, rateLockId: stale.rateLockId });
      assertEquals(res.status, 400);
      assertEquals(res.json.error.code, "RATE_LOCK_EXPIRED");
      for (const id of ["rlk_01kzzzzzzzzzzzzzzzzzzzzzzz", "nope", "'; DROP TABLE x; --"]) {
        res = await checkout({ ...body, rateLockId: id });
        assertEquals(res.status, 404);
        assertEquals(res.json.error.code, "RATE_LOCK_NOT_FOUND");
      }
      const other = await makePaylink(gw, s.m.merchantId, { products: [{ name: "X", price: "1000" }] });
      const foreign =
        (await post(`/v1/paylinks/${other.paylink.slug}/rate-lock`, { paymentMethod: "USDT_TRC20" }))
          .json.data;
      res = await checkout({ ...body, rateLockId: foreign.rateLockId });
      assertEquals(res.json.error.code, "RATE_LOCK_NOT_FOUND");
      // Nothing was held by the refused attempts.
      gw.rates.set(gw.deps.config.fx.fixedUsdtEur);
    });

    await t.step("an expired pay-in gives the stock back and the order reads EXPIRED", async () => {
      const before = await stockOf(gw, pagne.id);
      // One unit: a customer holds at most 20 % of the 8 units still unsold (1) while unpaid.
      const res = await checkout({
        items: [{ productId: pagne.id, quantity: 1 }],
        paymentMethod: "USDT_TRC20",
      });
      assertEquals(res.status, 201, res.text);
      assertEquals(await stockOf(gw, pagne.id), before - 1);
      clock.advance(1_801_000);
      gw.rates.set(gw.deps.config.fx.fixedUsdtEur);
      await expireDuePayins(gw.deps);
      assertEquals(await stockOf(gw, pagne.id), before);
      const o = (await gw.request("GET", `/v1/paylinks/${s.paylink.id}/orders`, { key })).json.data.items
        .find((x: { id: string }) => x.id === res.json.data.orderId);
      assertEquals(o.status, "EXPIRED");
    });

    await t.step("mobile money: XOF at rate 1, the phone required", async () => {
      let res = await checkout({
        items: [{ productId: bracelet.id, quantity: 1 }],
        paymentMethod: "MOBILE_MONEY",
      });
      assertEquals(res.status, 400);
      assertEquals(res.json.error.code, "CUSTOMER_PHONE_REQUIRED");
      const stockBefore = await stockOf(gw, pagne.id);
      res = await checkout({
        items: [{ productId: pagne.id, quantity: 1 }],
        paymentMethod: "MOBILE_MONEY",
        customerPhone: "+22670123456",
      });
      assertEquals(res.status, 201, res.text);
      assertEquals(res.json.data.amount, "5000");
      assertEquals(res.json.data.currency, "XOF");
      assertEquals(res.json.data.address, null);
      assertEquals(await stockOf(gw, pagne.id), stockBefore - 1);
    });

    await t.step("export: every order as CSV, formulas neutralized; stats", async () => {
      const evil = await checkout({
        items: [{ productId: bracelet.id, quantity: 4 }],
        paymentMethod: "USDT_TRC20",
        customerName: '=HYPERLINK("http://evil")',
      });
      assertEquals(evil.status, 201, evil.text);
      const res = await gw.app.request(`/v1/paylinks/${s.paylink.id}/orders/export`, {
        headers: { "x-api-key": key },
      });
      assertEquals(res.status, 200);
      assertMatch(res.headers.get("content-type") ?? "", /^text\/csv/);
      const csv = await res.text();
      const lines = csv.trim().split("\n");
      assertMatch(lines[0], /^orderId,createdAt,status,customerName/);
      const total =
        (await gw.request("GET", `/v1/paylinks/${s.paylink.id}/orders`, { key })).json.data.meta.total;
      assertEquals(lines.length - 1, total);
      assert(csv.includes(`"'=HYPERLINK(""http://evil"")"`), "formula neutralized");
      assert(csv.includes(firstOrder));
      const stats = await gw.request("GET", `/v1/paylinks/${s.paylink.id}/stats`, { key });
      assertEquals(stats.status, 200, stats.text);
      assertEquals(stats.json.data.checkouts, total);
      assertEquals(stats.json.data.paidOrders, 1);
      assertEquals(stats.json.data.revenue.length, 1);
      assertEquals(stats.json.data.revenue[0].paymentMethod, "USDT_TRC20");
      assertEquals(stats.json.data.sales, [{ currency: "XOF", amount: "11000" }]);
      await gw.request("GET", `/pay/link/${s.slug}`);
      await gw.request("GET", `/pay/link/${s.slug}`);
      const after = (await gw.request("GET", `/v1/paylinks/${s.paylink.id}/stats`, { key })).json.data;
      assertEquals(after.views, stats.json.data.views + 2);
      assertEquals(after.conversionRate, new Decimal(1).div(after.views).toFixed(4));
    });

    await t.step("another merchant, another mode, malformed ids: not found", async () => {
      const other = await gw.createMerchant("Other");
      for (const path of ["orders", "orders/export", "stats"]) {
        let res = await gw.request("GET", `/v1/paylinks/${s.paylink.id}/${path}`, {
          key: other.keys.testSecret,
        });
        assertEquals(res.status, 404);
        res = await gw.request("GET", `/v1/paylinks/${s.paylink.id}/${path}`, { key: s.m.keys.liveSecret });
        assertEquals(res.status, 404);
        res = await gw.request("GET", `/v1/paylinks/plk_%00/${path}`, { key });
        assert(res.status === 404 || res.status === 400, res.text);
        res = await gw.request("GET", `/v1/paylinks/${s.paylink.id}/${path}`);
        assertEquals(res.status, 401);
      }
    });
  } finally {
    await gw.close();
  }
});

Deno.test("hostile input on the public routes: never 500, nothing moved", async () => {
  const gw = await startTestGateway();
  try {
    const s = await setup(gw);
    const [pagne] = s.products;
    const bodies: unknown[] = [
      { items: [{ productId: pagne.id, quantity: 1 }], customerName: "a\u0000b" },
      { items: [{ productId: pagne.id, quantity: 1 }], customerName: "\ud800" },
      { items: [{ productId: pagne.id, quantity: 1 }], customerName: "x".repeat(100_000) },
      { items: [{ productId: pagne.id, quantity: "1" }] },
      { items: [{ productId: pagne.id, quantity: 1.5 }] },
      { items: [{ productId: pagne.id, quantity: -1 }] },
      { items: [{ productId: pagne.id, quantity: 1e12 }] },
      { items: [] },
      { items: "all" },
      { items: [{ productId: "prd_01kzzzzzzzzzzzzzzzzzzzzzzz", quantity: 1 }] },
      { items: [{ productId: "' OR 1=1 --", quantity: 1 }] },
      { items: [{ productId: pagne.id, quantity: 1 }], paymentMethod: "PAYPAL" },
      { items: [{ productId: pagne.id, quantity: 1 }], extra: true },
      { items: [{ productId: pagne.id, quantity: 1 }], customerEmail: "not-an-email" },
      { items: [{ productId: pagne.id, quantity: 1 }], promoCode: "x".repeat(10_000) },
      [],
      null,
      "text",
    ];
    for (const body of bodies) {
      const res = await gw.request("POST", `/v1/pay/link/${s.slug}/checkout`, { body });
      assert(res.status >= 400 && res.status < 500, `${JSON.stringify(body).slice(0, 80)} -> ${res.status}`);
    }
    // Malformed or unknown slugs, on every public route.
    for (const slug of ["NO", "a", "%00", "x".repeat(300), "..%2f..", "zz-unknown-zz"]) {
      for (const path of [`/v1/pay/link/${slug}/checkout`, `/v1/pay/link/${slug}/apply-promo`]) {
        const res = await gw.request("POST", path, {
          body: path.endsWith("checkout") ? { items: [{ productId: pagne.id, quantity: 1 }] } : { code: "X" },
        });
        assert(res.status === 404 || res.status === 400, `${path} -> ${res.status}`);
      }
      const res = await gw.request("POST", `/v1/paylinks/${slug}/rate-lock`, {
        body: { paymentMethod: "CARD" },
      });
      assert(res.status === 404 || res.status === 400, `${slug} -> ${res.status}`);
    }
    assertEquals(await stockOf(gw, pagne.id), 10);
    const [{ n }] = await gw.db.query<{ n: number }>("SELECT count(*)::int AS n FROM paylink_orders");
    assertEquals(n, 0);
    const [{ p }] = await gw.db.query<{ p: number }>("SELECT count(*)::int AS p FROM payins");
    assertEquals(p, 0);
  } finally {
    await gw.close();
  }
});

Deno.test("50 concurrent checkouts on a stock of 10: exactly 10 orders", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Race");
    const { paylink, products } = await makePaylink(gw, m.merchantId, {
      currency: "USDT_TRC20",
      methods: ["USDT_TRC20"],
      products: [{ name: "Dernier lot", price: "10", stockEnabled: true, stockQty: 10 }],
    });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        gw.request("POST", `/v1/pay/link/${paylink.slug}/checkout`, {
          body: { items: [{ productId: products[0].id, quantity: 1 }] },
          clientAddress: `10.1.0.${i}`,
        })),
    );
    const statuses = answers.map((a) => a.status);
    assertEquals(statuses.filter((x) => x === 201).length, 10, JSON.stringify(statuses));
    assertEquals(statuses.filter((x) => x === 409).length, 40, JSON.stringify(statuses));
    assertEquals(await stockOf(gw, products[0].id), 0);
    const [{ n, p }] = await gw.db.query<{ n: number; p: number }>(
      "SELECT count(*)::int AS n, count(DISTINCT payin_id)::int AS p FROM paylink_orders",
    );
    assertEquals([n, p], [10, 10]);
    const [{ payins }] = await gw.db.query<{ payins: number }>("SELECT count(*)::int AS payins FROM payins");
    assertEquals(payins, 10);
  } finally {
    await gw.close();
  }
});

Deno.test("public routes are rate-limited per client address", async () => {
  const gw = await startTestGateway({ env: { PUBLIC_RATE_LIMIT: "3" } });
  try {
    const m = await gw.createMerchant("Limited");
    const { paylink } = await makePaylink(gw, m.merchantId, { products: [{ name: "A", price: "1000" }] });
    const codes = [];
    for (let i = 0; i < 4; i++) {
      codes.push(
        await gw.request("POST", `/v1/pay/link/${paylink.slug}/apply-promo`, { body: { code: "X" } }),
      );
    }
    assertEquals(codes.map((r) => r.status), [400, 400, 400, 429]);
    assertEquals(codes[3].json.error.code, "RATE_LIMIT_EXCEEDED");
    assert(Number(codes[3].headers.get("retry-after")) >= 1);
  } finally {
    await gw.close();
  }
});
