// A paylink order refunded with `restock: true` gives its stocked items back once it completes (once per
// order); refund scopes: a restricted key needs refunds_write to ask and refunds_read to read, and a
// publishable key has neither.
import { TEST_CARDS } from "../../rails/fiat/mod.ts";
import { assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { makePaylink, stockOf } from "../shop_fixture.ts";
import { approve, askRefund, getRefund, paidCard, roomyMerchant, runRefundJobs } from "../refund_fixture.ts";

Deno.test("refunds: restock of a paylink order once; scopes of restricted and publishable keys", async (t) => {
  const gw = await startTestGateway();
  const m = await roomyMerchant(gw);
  const key = m.keys.liveSecret;
  try {
    await paidCard(gw, key, "50000"); // room in the wallet for full refunds
    await t.step("restock: the order's stocked units return when the refund completes, once", async () => {
      const shop = await makePaylink(gw, m.merchantId, {
        isSandbox: false,
        methods: ["CARD"],
        products: [{ name: "Pagne", price: "4000", stockEnabled: true, stockQty: 20 }],
      });
      const [pagne] = shop.products;
      const order = await gw.request("POST", `/v1/pay/link/${shop.paylink.slug}/checkout`, {
        body: {
          items: [{ productId: pagne.id, quantity: 2 }],
          paymentMethod: "CARD",
          customerName: "Awa Ouedraogo",
          customerEmail: "awa@example.com",
        },
      });
      assertEquals(order.status, 201, order.text);
      const payin = order.json.data.transactionId;
      const [{ provider_ref }] = await gw.db.query<{ provider_ref: string }>(
        "SELECT provider_ref FROM payins WHERE id = $1",
        [payin],
      );
      gw.simulators.card.submitCard(provider_ref, {
        number: TEST_CARDS.SUCCESS,
        expiry: "12/39",
        cvc: "123",
      });
      await gw.simulators.flush();
      assertEquals(await stockOf(gw, pagne.id), 18);
      // A first partial refund without restock, then one with it, then one more with it.
      const plain = (await askRefund(gw, key, payin, { amount: "1000" })).json.data;
      const first = (await askRefund(gw, key, payin, { amount: "1000", restock: true })).json.data;
      const second = (await askRefund(gw, key, payin, { restock: true })).json.data;
      for (const r of [plain, first, second]) await approve(gw, r.refundId);
      await runRefundJobs(gw);
      for (const r of [plain, first, second]) {
        assertEquals((await getRefund(gw, key, r.refundId)).status, "COMPLETED");
      }
      assertEquals(await stockOf(gw, pagne.id), 20, "the two units back once, not twice");
    });

    await t.step(
      "scopes: restricted keys hold exactly what they were given; publishable keys nothing",
      async () => {
        const payin = await paidCard(gw, key, "2000");
        const make = async (scopes: string[]) =>
          (await gw.request("POST", "/v1/api-keys", { key, body: { kind: "restricted", name: "k", scopes } }))
            .json.data.key as string;
        const readOnly = await make(["refunds_read"]);
        const writeOnly = await make(["refunds_write"]);
        const refused = await askRefund(gw, readOnly, payin, { amount: "100" });
        assertEquals([refused.status, refused.json.error.code], [403, "FORBIDDEN"]);
        const r = await askRefund(gw, writeOnly, payin, { amount: "100" });
        assertEquals(r.status, 201, r.text);
        assertEquals(
          (await gw.request("GET", `/v1/refunds/${r.json.data.refundId}`, { key: readOnly })).status,
          200,
        );
        assertEquals((await gw.request("GET", "/v1/refunds", { key: writeOnly })).status, 403);
        const pk = m.keys.livePublishable;
        assertEquals((await askRefund(gw, pk, payin, { amount: "100" })).status, 403);
        assertEquals((await gw.request("GET", "/v1/refunds", { key: pk })).status, 403);
      },
    );
  } finally {
    await gw.close();
  }
});
