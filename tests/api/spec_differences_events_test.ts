// Issue 19, differences from the specification (second half): a paylink checkout's pay-in records the
// paylink's pricing, late funds to a pay-in's address are judged (deposit.overpaid / deposit.underpaid),
// VARIABLE paylinks take the customer's amount, the event catalogue says what is not emitted yet, the
// template DELETE is in the document, and no "canceld" in an error message.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { manualClock } from "../../domain/clock.ts";
import { Decimal } from "../../domain/money.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway, type TestGateway, withGateway } from "../helpers.ts";
import { makePaylink } from "../shop_fixture.ts";
import { eventsOf, makeRecurringPaylink, paidCheckout } from "../subscription_fixture.ts";

// deno-lint-ignore no-explicit-any
async function eventData(gw: TestGateway, type: string, field: string, value: string): Promise<any[]> {
  const rows = await gw.db.query<{ data: unknown }>(
    `SELECT data FROM events WHERE type = $1 AND data->>'${field}' = $2 ORDER BY created_at, id`,
    [type, value],
  );
  return rows.map((r) => typeof r.data === "string" ? JSON.parse(r.data) : r.data);
}

Deno.test(
  "a paylink checkout's pay-in records the paylink's currency, the order's total and the order's rate",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Boutique Awa");
    const key = m.keys.testSecret;
    gw.rates.set("0.92"); // 1 USDT = 603.48044 XOF
    const usdtShop = await makePaylink(gw, m.merchantId, {
      currency: "USDT_TRC20",
      products: [{ name: "Ebook", price: "10" }],
    });
    const xofShop = await makePaylink(gw, m.merchantId, {
      currency: "XOF",
      products: [{ name: "Pagne", price: "5000" }],
    });
    let customer = 0;
    const checkout = async (slug: string, body: Record<string, unknown>) => {
      const res = await gw.request("POST", `/v1/pay/link/${slug}/checkout`, {
        body,
        clientAddress: `10.1.0.${++customer}`,
      });
      assertEquals(res.status, 201, res.text);
      return res.json.data;
    };
    const orderOf = async (paylinkId: string, orderId: string) => {
      const res = await gw.request("GET", `/v1/paylinks/${paylinkId}/orders`, { key });
      assertEquals(res.status, 200, res.text);
      // deno-lint-ignore no-explicit-any
      return res.json.data.items.find((o: any) => o.orderId === orderId || o.id === orderId);
    };
    const record = async (id: string) => (await gw.request("GET", `/v1/payments/${id}`, { key })).json.data;

    // Mobile money, USDT-priced: the confirmed event says USDT, 10, and the order's 603.48044.
    const momo = await checkout(usdtShop.paylink.slug, {
      items: [{ productId: usdtShop.products[0].id, quantity: 1 }],
      paymentMethod: "MOBILE_MONEY",
      customerPhone: "+22670123456",
    });
    const momoOrder = await orderOf(usdtShop.paylink.id, momo.orderId);
    assertEquals(momoOrder.fxRate, "603.48044");
    assertEquals(momo.amount, "6035");
    const paid = await gw.request("POST", `/v1/sandbox/payments/${momo.transactionId}/simulate`, { key });
    assertEquals(paid.status, 200, paid.text);
    const [confirmed] = await eventData(gw, "payin.confirmed", "transactionId", momo.transactionId);
    assertEquals(
      [confirmed.pricingCurrency, confirmed.pricingAmount, confirmed.fxRate, confirmed.amountRequested],
      ["USDT_TRC20", "10.000000", "603.48044000", "6035"],
    );

    // Card, USDT-priced: the pay-in record says the same from its creation.
    const card = await checkout(usdtShop.paylink.slug, {
      items: [{ productId: usdtShop.products[0].id, quantity: 2 }],
      paymentMethod: "CARD",
      customerName: "Awa Ouedraogo",
      customerEmail: "awa@example.com",
    });
    const cardRecord = await record(card.transactionId);
    assertEquals(
      [cardRecord.pricingCurrency, cardRecord.pricingAmount, cardRecord.fxRate, cardRecord.amount],
      ["USDT_TRC20", "20.000000", "603.48044000", "12070"],
    );

    // USDT, XOF-priced: the pay-in record carries XOF, 5000 and the order's rate (8 decimals).
    const usdt = await checkout(xofShop.paylink.slug, {
      items: [{ productId: xofShop.products[0].id, quantity: 1 }],
      paymentMethod: "USDT_TRC20",
    });
    const usdtOrder = await orderOf(xofShop.paylink.id, usdt.orderId);
    const usdtRecord = await record(usdt.transactionId);
    assertEquals([usdtRecord.pricingCurrency, usdtRecord.pricingAmount], ["XOF", "5000"]);
    assertEquals(usdtRecord.fxRate, new Decimal(usdtOrder.fxRate).toFixed(8));
    assert(new Decimal(usdtRecord.fxRate).lessThan(1), "XOF to USDT is below 1");

    // A pay-in created directly (no paylink) is priced in its own currency as before; USDT shows none.
    const direct = await gw.request("POST", "/v1/payments?sandbox=true", {
      key,
      body: { amount: "10" },
      headers: { "idempotency-key": crypto.randomUUID() },
    });
    assertEquals(direct.status, 201, direct.text);
    assertEquals("pricingCurrency" in await record(direct.json.data.transactionId), false);
  }),
);

Deno.test("late funds to a pay-in's address: deposit.underpaid, then deposit.overpaid, each credited", async () => {
  const clock = manualClock(new Date());
  const gw = await startTestGateway({ clock });
  try {
    const m = await gw.createMerchant("Boutique Ouaga");
    const key = m.keys.liveSecret;
    await scanChain(gw.deps);
    const created = await gw.request("POST", "/v1/payments", {
      key,
      body: { amount: "10", expiresInSeconds: 900 },
      headers: { "idempotency-key": crypto.randomUUID() },
    });
    assertEquals(created.status, 201, created.text);
    const p = created.json.data; // amountExpected 11.500000 (network fee 1.5)
    clock.advance(901_000);
    await scanChain(gw.deps);
    clock.advance(-901_000); // the devnet's blocks carry real time: keep the gateway's clock beside it
    await gw.db.query("UPDATE payins SET expires_at = now() - interval '1 minute' WHERE id = $1", [
      p.transactionId,
    ]);
    const late = async (units: bigint) => {
      gw.devnet.transferUsdt(p.address, units);
      gw.devnet.mine(20);
      await scanChain(gw.deps);
    };
    await late(5_000_000n);
    const [under] = await eventData(gw, "deposit.underpaid", "payinId", p.transactionId);
    assertEquals(
      [under.status, under.amount, under.expectedAmount, under.shortfall],
      ["UNDERPAID", "5.000000", "11.500000", "6.500000"],
    );
    // The next late transfer is judged against what was still due (6.5): 10 is 3.5 over.
    await late(10_000_000n);
    const [over] = await eventData(gw, "deposit.overpaid", "payinId", p.transactionId);
    assertEquals(
      [over.status, over.amount, over.expectedAmount, over.surplus],
      ["OVERPAID", "10.000000", "6.500000", "3.500000"],
    );
    assertEquals((await eventData(gw, "deposit.confirmed", "payinId", p.transactionId)).length, 0);
    // Both were credited (less the pay-in's fees): the judgement changes the event, not the money.
    const credited = await gw.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM chain_transfers WHERE payin_id = $1 AND status = 'CREDITED'",
      [p.transactionId],
    );
    assertEquals(credited[0].n, 2);
    const balance = await gw.request("GET", "/v1/merchant/balances/USDT_TRC20", { key });
    assert(new Decimal(balance.json.data.total).greaterThan(10), balance.text);
  } finally {
    await gw.close();
  }
});

Deno.test(
  "the event catalogue says which events are not emitted yet; subscribing to them stays allowed",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Hooks Shop");
    const key = m.keys.liveSecret;
    const list = await gw.request("GET", "/v1/webhooks/events", { key });
    assertEquals(list.status, 200, list.text);
    const emitted = new Map<string, boolean>(
      // deno-lint-ignore no-explicit-any
      list.json.data.items.map((i: any) => [i.event, i.emitted]),
    );
    for (const event of ["splitpayment.created"]) {
      assertEquals(emitted.get(event), false, event);
    }
    for (
      const event of [
        "payin.confirmed",
        "deposit.overpaid",
        "deposit.underpaid",
        "payout.failed",
        "refund.created",
        "dispute.opened",
        "kyb.approved",
        "agreement.resigned",
      ]
    ) {
      assertEquals(emitted.get(event), true, event);
    }
    assertEquals((await gw.request("GET", "/v1/webhooks/events")).status, 401);

    const doc = (await gw.request("GET", "/v1/openapi.json")).json;
    assertMatch(doc.webhooks["splitpayment.created"].post.summary, /not emitted yet/);
    assertEquals(doc.webhooks["refund.created"].post.summary, "The refund.created event");
    assertMatch(doc.webhooks["splitpayment.created"].post.description, /Not emitted by the gateway yet/);
    assertEquals(doc.webhooks["deposit.overpaid"].post.summary, "The deposit.overpaid event");

    const endpoint = await gw.request("POST", "/v1/webhooks/endpoints", {
      key,
      body: { url: "http://127.0.0.1:9/hooks", events: ["refund.created", "kyb.approved"] },
    });
    assertEquals(endpoint.status, 201, endpoint.text);
    assertEquals(endpoint.json.data.events, ["refund.created", "kyb.approved"]);
  }),
);

Deno.test(
  "DELETE /v1/paylinks/templates/{id} is in the document and answers as it says",
  withGateway(async (gw) => {
    const doc = (await gw.request("GET", "/v1/openapi.json")).json;
    const op = doc.paths["/v1/paylinks/templates/{id}"]?.delete;
    assert(op, "the operation is documented");
    assertEquals(op.operationId, "deletePaylinkTemplate");
    const m = await gw.createMerchant("Templates Shop");
    const other = await gw.createMerchant("Other Shop");
    const key = m.keys.liveSecret;
    const created = await gw.request("POST", "/v1/paylinks/templates", {
      key,
      body: { name: "Boutique", config: { type: "FIXED", products: [{ name: "Pagne", price: "10" }] } },
    });
    assertEquals(created.status, 201, created.text);
    const id = created.json.data.id;
    for (const bad of ["tpl_x", "plk_%00", "save-as-template"]) {
      const res = await gw.request("DELETE", `/v1/paylinks/templates/${bad}`, { key });
      assertEquals([res.status, res.json.error.code], [404, "NOT_FOUND"], bad);
    }
    assertEquals(
      (await gw.request("DELETE", `/v1/paylinks/templates/${id}`, { key: other.keys.liveSecret }))
        .status,
      404,
    );
    assertEquals((await gw.request("DELETE", `/v1/paylinks/templates/${id}`)).status, 401);
    const deleted = await gw.request("DELETE", `/v1/paylinks/templates/${id}`, { key });
    assertEquals([deleted.status, deleted.json.data], [200, { deleted: true, id }]);
    assertEquals((await gw.request("DELETE", `/v1/paylinks/templates/${id}`, { key })).status, 404);
  }),
);

Deno.test(
  "a refused subscription move says 'cannot be cancelled' (no 'canceld')",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Panier Bio");
    const key = m.keys.testSecret;
    const { paylink, products } = await makeRecurringPaylink(gw, m.merchantId);
    await paidCheckout(gw, key, paylink.slug, products[0].id);
    const [created] = await eventsOf(gw, "subscription.created");
    const id = created.subscriptionId;
    const move = (action: string) => gw.request("POST", `/v1/subscriptions/${id}/${action}`, { key });
    assertEquals((await move("cancel")).status, 200);
    for (const [action, words] of [["cancel", "cancelled"], ["pause", "paused"], ["resume", "resumed"]]) {
      const res = await move(action);
      assertEquals([res.status, res.json.error.code], [400, "INVALID_TRANSACTION_STATUS"]);
      assertEquals(res.json.error.message, `Subscription is CANCELLED; it cannot be ${words}`);
    }
  }),
);

Deno.test(
  "a VARIABLE paylink takes the customer's amount within its bounds; a FIXED one refuses an amount",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Dons Ouaga");
    const key = m.keys.testSecret;
    const variable = await makePaylink(gw, m.merchantId, {
      currency: "XOF",
      products: [{ name: "Don", price: "1000" }],
      promos: [{ code: "MERCI", type: "PERCENT", value: "10" }],
      fields: { type: "VARIABLE" },
    });
    const usdtVariable = await makePaylink(gw, m.merchantId, {
      currency: "USDT_TRC20",
      products: [{ name: "Tip", price: "5" }],
      fields: { type: "VARIABLE" },
    });
    const fixed = await makePaylink(gw, m.merchantId, {
      currency: "XOF",
      products: [{ name: "Pagne", price: "5000" }],
    });
    let customer = 0;
    const checkout = (shop: typeof variable, body: Record<string, unknown>) =>
      gw.request("POST", `/v1/pay/link/${shop.paylink.slug}/checkout`, {
        body: {
          items: [{ productId: shop.products[0].id, quantity: 1 }],
          paymentMethod: "MOBILE_MONEY",
          customerPhone: "+22670123456",
          ...body,
        },
        clientAddress: `10.2.0.${++customer}`,
      });
    const orderTotal = async (shop: typeof variable, orderId: string) => {
      const res = await gw.request("GET", `/v1/paylinks/${shop.paylink.id}/orders`, { key });
      // deno-lint-ignore no-explicit-any
      const o = res.json.data.items.find((x: any) => x.orderId === orderId || x.id === orderId);
      return [new Decimal(o.subtotal).toFixed(), new Decimal(o.total).toFixed()];
    };

    // The customer's amount is the order's subtotal, and the pay-in's amount (XOF to XOF).
    let res = await checkout(variable, { amount: "7500" });
    assertEquals(res.status, 201, res.text);
    assertEquals(res.json.data.amount, "7500");
    assertEquals(await orderTotal(variable, res.json.data.orderId), ["7500", "7500"]);
    // A promo code applies to the chosen amount.
    res = await checkout(variable, { amount: "2000", promoCode: "merci" });
    assertEquals([res.status, res.json.data?.amount], [201, "1800"], res.text);
    // No amount: the cart's price.
    res = await checkout(variable, {});
    assertEquals([res.status, res.json.data?.amount], [201, "1000"], res.text);
    // USDT: up to 6 decimals.
    res = await checkout(usdtVariable, { amount: "12.345678", paymentMethod: "USDT_TRC20" });
    assertEquals([res.status, res.json.data?.amount], [201, "12.345678"], res.text);

    const refused: Array<[typeof variable, string, number, string]> = [
      [variable, "999", 400, "AMOUNT_TOO_SMALL"],
      [variable, "100001", 400, "AMOUNT_TOO_LARGE"],
      [variable, "1500.5", 400, "INVALID_AMOUNT"], // XOF has no decimals
      [usdtVariable, "4.999999", 400, "AMOUNT_TOO_SMALL"],
      [variable, "-5", 400, "VALIDATION_ERROR"],
      [variable, "1e4", 400, "VALIDATION_ERROR"],
      [variable, "5000\u0000", 400, "VALIDATION_ERROR"],
      [variable, "9".repeat(5000), 400, "VALIDATION_ERROR"],
      [fixed, "5000", 400, "VALIDATION_ERROR"],
    ];
    for (const [shop, amount, status, code] of refused) {
      const r = await checkout(shop, { amount });
      assertEquals([r.status, r.json?.error?.code], [status, code], `${amount.slice(0, 20)}: ${r.text}`);
      assertEquals(r.json.error.details?.[0]?.field, "amount", r.text);
    }
    res = await checkout(variable, { amount: 7500 });
    assertEquals([res.status, res.json.error.code], [400, "VALIDATION_ERROR"]);
    // A refused checkout holds nothing: the paylink counts only the three orders made on it above.
    const [counted] = await gw.db.query<{ use_count: number }>(
      "SELECT use_count FROM paylinks WHERE id = $1",
      [variable.paylink.id],
    );
    assertEquals(counted.use_count, 3);

    // The hosted page shows an amount field on the VARIABLE paylink only.
    const page = async (slug: string) => await (await gw.app.request(`/pay/link/${slug}?lang=en`)).text();
    const variablePage = await page(variable.paylink.slug);
    assertMatch(variablePage, /<input[^>]*id="amount"[^>]*name="amount"/);
    assertMatch(variablePage, /Your amount \(XOF\)/);
    assertEquals(/id="amount"/.test(await page(fixed.paylink.slug)), false);
  }),
);
