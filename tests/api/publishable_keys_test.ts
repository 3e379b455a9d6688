// A publishable key lives in a customer's browser, so anyone can copy it. On every route it may call (README
// "Keys, modes and the sandbox" lists them) it reads only what the customer is shown before paying: never a
// digital product's link, promo codes, statistics, order lists or the customers' e-mail, name and phone.
// Merchant-only routes refuse it (FORBIDDEN, cause INSUFFICIENT_SCOPE); the secret key still sees
// everything; another merchant's or another mode's ids are NOT_FOUND. Live and sandbox keys alike.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { contractFor } from "../contract.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { makePaylink } from "../shop_fixture.ts";
import { makeRecurringPaylink, paidCheckout } from "../subscription_fixture.ts";

const DIGITAL_URL = "https://files.example/paid-ebook-7f3a.pdf";
const PROMO = "SECRET50";
const INTERNAL_NAME = "internal-q3-campaign";
const AFTER_PAYMENT = "Your access code: XYZ-123";
const SUCCESS_URL = "https://shop.example/thanks-download";
const CUSTOMER = { email: "awa@example.com", name: "Awa Ouedraogo", phone: "+22670123456" };
// paidCheckout (tests/subscription_fixture.ts) pays as this customer.
/** Text that must never appear in any answer to a publishable key. */
const SECRETS = [DIGITAL_URL, PROMO, INTERNAL_NAME, AFTER_PAYMENT, SUCCESS_URL, ...Object.values(CUSTOMER)];

async function shopOf(gw: TestGateway, merchantId: string, isSandbox: boolean) {
  return await makePaylink(gw, merchantId, {
    isSandbox,
    products: [
      { name: "Ebook", price: "5000", productType: "DIGITAL", digitalUrl: DIGITAL_URL },
      { name: "Panier", price: "3000", stockEnabled: true, stockQty: 2, lowStockThreshold: 5 },
    ],
    promos: [{ code: PROMO, type: "PERCENT", value: "50" }],
    fields: { name: INTERNAL_NAME, post_payment_action: AFTER_PAYMENT, success_url: SUCCESS_URL },
  });
}

/** One merchant's data in one mode: a paylink, a subscription and a pay-in, and its two keys. */
type Mode = {
  label: string;
  pk: string;
  sk: string;
  paylinkId: string;
  subscriptionId: string;
  payinId: string;
};

async function setUp(gw: TestGateway) {
  const m = await gw.createMerchant("Boutique Awa");
  const testShop = await shopOf(gw, m.merchantId, true);
  const liveShop = await shopOf(gw, m.merchantId, false);
  // A paid sandbox order: customer data, a delivered digital link, statistics.
  await paidCheckout(gw, m.keys.testSecret, testShop.paylink.slug, testShop.products[0].id);

  const recurring = await makeRecurringPaylink(gw, m.merchantId);
  for (let i = 0; i < 2; i++) {
    await paidCheckout(gw, m.keys.testSecret, recurring.paylink.slug, recurring.products[0].id);
  }
  const subs = (await gw.request("GET", "/v1/subscriptions", { key: m.keys.testSecret })).json.data.items;
  assertEquals(subs.length, 2);
  // Live subscriptions need a live payment; moving one sandbox subscription to live mode stands in for it.
  await gw.db.query("UPDATE subscriptions SET is_sandbox = false WHERE id = $1", [subs[1].id]);

  const payin = async (key: string, path: string) => {
    const res = await gw.request("POST", path, {
      key,
      body: { amount: "12", externalRef: "order-77", metadata: { customerEmail: CUSTOMER.email } },
    });
    assertEquals(res.status, 201, res.text);
    return res.json.data.transactionId as string;
  };
  const modes: Mode[] = [
    {
      label: "live",
      pk: m.keys.livePublishable,
      sk: m.keys.liveSecret,
      paylinkId: liveShop.paylink.id,
      subscriptionId: subs[1].id,
      payinId: await payin(m.keys.liveSecret, "/v1/payments"),
    },
    {
      label: "sandbox",
      pk: m.keys.testPublishable,
      sk: m.keys.testSecret,
      paylinkId: testShop.paylink.id,
      subscriptionId: subs[0].id,
      payinId: await payin(m.keys.testSecret, "/v1/payments?sandbox=true"),
    },
  ];
  return { m, modes };
}

/** README's table: the routes a publishable key is refused, as [method, path, body]. */
function refusedRoutes(mode: Mode): Array<[string, string, unknown?]> {
  const plk = mode.paylinkId;
  return [
    ["GET", "/v1/paylinks"],
    ["POST", "/v1/paylinks/simulate", { amount: "5000", currency: "XOF" }],
    ["GET", `/v1/paylinks/${plk}/promo-codes`],
    ["GET", `/v1/paylinks/${plk}/orders`],
    ["GET", `/v1/paylinks/${plk}/orders/export`],
    ["GET", `/v1/paylinks/${plk}/stats`],
    ["GET", "/v1/paylinks/templates"],
    ["GET", "/v1/subscriptions"],
    ["GET", `/v1/subscriptions/${mode.subscriptionId}/renewals`],
    ["GET", "/v1/payments"],
  ];
}

function assertNoSecrets(text: string, where: string) {
  for (const secret of SECRETS) assert(!text.includes(secret), `${where} shows ${secret}`);
}

Deno.test("publishable keys read only what a customer's browser needs", async (t) => {
  const gw = await startTestGateway();
  try {
    const { modes } = await setUp(gw);
    const rival = await gw.createMerchant("Rival SARL");

    for (const mode of modes) {
      await t.step(`${mode.label}: a paylink without promo codes, digitalUrl or counts`, async () => {
        const res = await gw.request("GET", `/v1/paylinks/${mode.paylinkId}`, { key: mode.pk });
        assertEquals(res.status, 200, res.text);
        const view = res.json.data;
        assertEquals(view.id, mode.paylinkId);
        assertMatch(view.paymentUrl, /\/pay\/link\//);
        for (const hidden of ["promoCodes", "name", "useCount", "ordersCount", "maxUses", "successUrl"]) {
          assert(!(hidden in view), `${hidden} shown`);
        }
        assert(!("postPaymentAction" in view) && !("autoDisableOnDepletion" in view));
        const [ebook, basket] = view.products;
        assertEquals([ebook.name, ebook.price, ebook.productType], [
          "Ebook",
          "5000.".padEnd(23, "0"),
          "DIGITAL",
        ]);
        for (const hidden of ["digitalUrl", "stockQty", "lowStockThreshold"]) {
          assert(!(hidden in ebook), `product ${hidden} shown`);
        }
        // Stock only as availability, as the hosted page shows it.
        assertEquals([basket.isLowStock, basket.soldOut], [true, false]);
        assertNoSecrets(res.text, `GET /v1/paylinks/{id} (${mode.label} pk)`);

        const full = (await gw.request("GET", `/v1/paylinks/${mode.paylinkId}`, { key: mode.sk })).json.data;
        assertEquals(full.promoCodes.map((p: { code: string }) => p.code), [PROMO]);
        assertEquals(full.products[0].digitalUrl, DIGITAL_URL);
        assertEquals([full.name, full.postPaymentAction, full.successUrl], [
          INTERNAL_NAME,
          AFTER_PAYMENT,
          SUCCESS_URL,
        ]);
        assertEquals(full.products[1].stockQty, 2);
      });

      await t.step(`${mode.label}: a subscription without the customer's e-mail, name or phone`, async () => {
        const res = await gw.request("GET", `/v1/subscriptions/${mode.subscriptionId}`, { key: mode.pk });
        assertEquals(res.status, 200, res.text);
        assertEquals([res.json.data.id, res.json.data.status], [mode.subscriptionId, "ACTIVE"]);
        assertEquals(res.json.data.amount, "5000");
        for (const hidden of ["customer", "firstOrderId", "paymentMethod"]) {
          assert(!(hidden in res.json.data), `${hidden} shown`);
        }
        assertNoSecrets(res.text, `GET /v1/subscriptions/{id} (${mode.label} pk)`);
        const full = await gw.request("GET", `/v1/subscriptions/${mode.subscriptionId}`, { key: mode.sk });
        assertEquals(full.json.data.customer, CUSTOMER);
      });

      await t.step(`${mode.label}: a pay-in without metadata, externalRef or fees`, async () => {
        const res = await gw.request("GET", `/v1/payments/${mode.payinId}`, { key: mode.pk });
        assertEquals([res.status, res.json.data.status], [200, "AWAITING_PAYMENT"]);
        for (const hidden of ["metadata", "externalRef", "serviceFee", "netAmount"]) {
          assert(!(hidden in res.json.data), `${hidden} shown`);
        }
        assertNoSecrets(res.text, `GET /v1/payments/{id} (${mode.label} pk)`);
        const full = await gw.request("GET", `/v1/payments/${mode.payinId}`, { key: mode.sk });
        assertEquals(full.json.data.metadata, { customerEmail: CUSTOMER.email });
      });

      await t.step(
        `${mode.label}: the merchant's public profile, and images with no key at all`,
        async () => {
          const profile = await gw.request("GET", "/v1/merchant/profile", { key: mode.pk });
          assertEquals([profile.status, profile.json.data.displayName], [200, "Boutique Awa"]);
          const image = await gw.request("GET", `/v1/images/${"0".repeat(64)}.png`);
          assertEquals(image.status, 404);
        },
      );

      await t.step(`${mode.label}: merchant-only routes refuse it, the secret key reads them`, async () => {
        for (const [method, path, body] of refusedRoutes(mode)) {
          const res = await gw.request(method, path, { key: mode.pk, body });
          assertEquals(res.status, 403, `${method} ${path}: ${res.text}`);
          assertEquals(res.json.error.code, "FORBIDDEN", `${method} ${path}`);
          assertEquals(res.json.error.cause, "INSUFFICIENT_SCOPE", `${method} ${path}`);
          const merchant = await gw.request(method, path, { key: mode.sk, body });
          assertEquals(merchant.status, 200, `${method} ${path} with the secret key: ${merchant.text}`);
        }
        const promos = await gw.request("GET", `/v1/paylinks/${mode.paylinkId}/promo-codes`, {
          key: mode.sk,
        });
        assertEquals(promos.json.data.items[0].code, PROMO);
      });

      await t.step(`${mode.label}: another merchant's and another mode's ids are NOT_FOUND`, async () => {
        const other = modes.find((x) => x !== mode)!;
        const strangers = [
          mode.label === "live" ? rival.keys.livePublishable : rival.keys.testPublishable,
          other.pk,
        ];
        for (const key of strangers) {
          for (
            const path of [
              `/v1/paylinks/${mode.paylinkId}`,
              `/v1/subscriptions/${mode.subscriptionId}`,
              `/v1/payments/${mode.payinId}`,
            ]
          ) {
            const res = await gw.request("GET", path, { key });
            assertEquals([res.status, res.json.error.code], [404, "NOT_FOUND"], path);
          }
        }
      });
    }

    await t.step("the secret key still reads orders, the export and statistics in full", async () => {
      const sandbox = modes[1];
      const orders = await gw.request("GET", `/v1/paylinks/${sandbox.paylinkId}/orders`, { key: sandbox.sk });
      const [order] = orders.json.data.items;
      assertEquals([order.customerEmail, order.customerName, order.customerPhone], [
        CUSTOMER.email,
        CUSTOMER.name,
        CUSTOMER.phone,
      ]);
      assertEquals(order.items[0].digitalUrl, DIGITAL_URL);
      const csv = await gw.request("GET", `/v1/paylinks/${sandbox.paylinkId}/orders/export`, {
        key: sandbox.sk,
      });
      assert(csv.text.includes(CUSTOMER.email), "the export names the customer");
      const stats = await gw.request("GET", `/v1/paylinks/${sandbox.paylinkId}/stats`, { key: sandbox.sk });
      assertEquals(stats.json.data.paidOrders, 1);
    });

    await t.step(
      "the document declares the public views, and a leak in them breaks the contract",
      async () => {
        const contract = contractFor((await gw.request("GET", "/v1/openapi.json")).text);
        const sandbox = modes[1];
        const path = `/v1/paylinks/${sandbox.paylinkId}`;
        const seen = (await gw.request("GET", path, { key: sandbox.pk })).json;
        const leaked = { ...seen, data: { ...seen.data, promoCodes: [] } };
        assert(contract.checkResponse("GET", path, 200, leaked), "promoCodes in a public view is caught");
        const product = { ...seen.data.products[0], digitalUrl: DIGITAL_URL };
        const leakedProduct = { ...seen, data: { ...seen.data, products: [product] } };
        assert(
          contract.checkResponse("GET", path, 200, leakedProduct),
          "digitalUrl in a public view is caught",
        );
        const subPath = `/v1/subscriptions/${sandbox.subscriptionId}`;
        const sub = (await gw.request("GET", subPath, { key: sandbox.pk })).json;
        const withCustomer = { ...sub, data: { ...sub.data, customer: CUSTOMER } };
        assert(
          contract.checkResponse("GET", subPath, 200, withCustomer),
          "customer in a public view is caught",
        );
      },
    );
  } finally {
    await gw.close();
  }
});
