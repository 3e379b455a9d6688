// README's paylink walk-throughs through the generated client (tests/typed_client.ts): the merchant makes
// a shop link with two products and a promo code, asks for a fee quote; then the customer's side with no
// key (apply-promo, rate-lock, checkout in USDT), the order paid on the devnet, and what the merchant and
// the operator read afterwards.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { Image } from "imagescript";
import { filePart, ok, withWalkthrough } from "../typed_client.ts";

Deno.test(
  "README through the generated client: a paylink with two products and a promo code, paid by a customer",
  withWalkthrough(async (w) => {
    const record = ok(
      await w.live.POST("/v1/paylinks", {
        body: {
          title: "Boutique Awa",
          currency: "XOF",
          collectPhone: "REQUIRED",
          brandColor: "#0a7d4f",
          products: [
            { name: "Pagne wax", price: "7500", stockQty: 12, lowStockThreshold: 2 },
            { name: "Foulard", price: "2500" },
          ],
        },
      }),
      201,
    ).data;
    assertMatch(record.id, /^plk_/);
    assertMatch(record.slug, /^boutique-awa-/);
    assertEquals([record.status, record.paymentUrl, record.useCount], [
      "ACTIVE",
      `http://localhost:8000/pay/link/${record.slug}`,
      0,
    ]);
    assertEquals(record.promoCodes, []);
    const [wax, scarf] = record.products;
    assertEquals([wax.name, wax.stockEnabled, wax.stockQty, scarf.name, scarf.stockEnabled], [
      "Pagne wax",
      true,
      12,
      "Foulard",
      false,
    ]);
    const paylink = { id: record.id };
    const slug = { slug: record.slug };

    // A promo code, stored upper-case; the paylink read again shows it.
    const promo = ok(
      await w.live.POST("/v1/paylinks/{id}/promo-codes", {
        params: { path: paylink },
        body: { code: "tabaski10", discountType: "PERCENT", discountValue: "10", maxUses: 50 },
      }),
      201,
    ).data;
    assertEquals(promo.code, "TABASKI10");
    const again = ok(await w.live.GET("/v1/paylinks/{id}", { params: { path: paylink } }), 200).data;
    assert("promoCodes" in again, "a secret key reads the full paylink");
    assertEquals(again.promoCodes.map((p) => p.code), ["TABASKI10"]);

    // A fee quote per rail.
    const quote = ok(
      await w.live.POST("/v1/paylinks/simulate", {
        body: {
          amount: "10000",
          currency: "XOF",
          methods: ["MOBILE_MONEY", "USDT_TRC20"],
          feeBearer: "CLIENT",
        },
      }),
      200,
    ).data;
    assertEquals(quote.quotes.map((q) => q.method), ["MOBILE_MONEY", "USDT_TRC20"]);

    // More (README): a cover image, products from a CSV file, a template of the paylink.
    const png = await new Image(4, 4).fill(0x0a7d4fff).encode();
    const covered = ok(
      await w.live.POST("/v1/paylinks/{id}/cover-image", {
        params: { path: paylink },
        body: { file: new File([new Uint8Array(png)], "cover.png", { type: "image/png" }) },
        bodySerializer: filePart,
      }),
      200,
    ).data;
    assertMatch(covered.coverImageUrl ?? "", /\/v1\/images\/[0-9a-f]{64}\.png$/);
    const image = ok(
      await w.anonymous.GET("/v1/images/{key}", {
        params: { path: { key: covered.coverImageKey ?? "" } },
        parseAs: "blob",
      }),
      200,
    );
    assertEquals(image.type, "image/png");
    const productsCsv = "name,price,stockQty\nBonnet,1500,5\n";
    const imported = ok(
      await w.live.POST("/v1/paylinks/{id}/products/import-csv", {
        params: { path: paylink },
        body: { file: new File([productsCsv], "products.csv", { type: "text/csv" }) },
        bodySerializer: filePart,
      }),
      201,
    ).data;
    assertEquals([imported.imported, imported.products.map((p) => p.name)], [1, ["Bonnet"]]);
    const template = ok(
      await w.live.POST("/v1/paylinks/{id}/save-as-template", {
        params: { path: paylink },
        body: { name: "Boutique" },
      }),
      201,
    ).data;
    const templates = ok(await w.live.GET("/v1/paylinks/templates"), 200).data;
    assertEquals(templates.items.map((t) => t.id), [template.id]);

    // The customer's side: whom they pay, the promo on the cart, a rate lock, the checkout.
    ok(await w.live.PATCH("/v1/merchant/profile", { body: { displayName: "Boutique Awa" } }), 200);
    const items = [{ productId: wax.id, quantity: 2 }];
    const preview = ok(
      await w.anonymous.POST("/v1/pay/link/{slug}/apply-promo", {
        params: { path: slug },
        body: { code: "TABASKI10", items },
      }),
      200,
    ).data;
    assertEquals([preview.subtotal, preview.discount, preview.total], ["15000", "1500", "13500"]);
    const lock = ok(
      await w.anonymous.POST("/v1/paylinks/{slug}/rate-lock", {
        params: { path: slug },
        body: { paymentMethod: "USDT_TRC20" },
      }),
      201,
    ).data;
    const checkout = ok(
      await w.anonymous.POST("/v1/pay/link/{slug}/checkout", {
        params: { path: slug },
        body: {
          items,
          promoCode: "TABASKI10",
          paymentMethod: "USDT_TRC20",
          rateLockId: lock.rateLockId,
          customerEmail: "fatou@example.com",
          customerPhone: "+22670123456",
        },
      }),
      201,
    ).data;
    assertMatch(checkout.orderId, /^ord_/);
    assertEquals([checkout.paymentMethod, checkout.currency], ["USDT_TRC20", "USDT_TRC20"]);
    assert(checkout.address !== null, "a USDT checkout answers its deposit address");
    assertEquals(checkout.checkoutUrl, `http://localhost:8000/checkout/${checkout.transactionId}`);
    // 13,500 XOF at 603.48044 XOF per USDT; the customer sends that plus the 1.50 network fee.
    assertEquals([checkout.amount, checkout.amountExpected], ["22.370237", "23.870237"]);
    const reused = await w.anonymous.POST("/v1/pay/link/{slug}/checkout", {
      params: { path: slug },
      body: {
        items: [{ productId: scarf.id, quantity: 1 }],
        paymentMethod: "USDT_TRC20",
        rateLockId: lock.rateLockId,
        customerPhone: "+22670123456",
      },
    });
    assertEquals([reused.response.status, reused.error?.error.code], [409, "RATE_LOCK_ALREADY_USED"]);

    // The customer pays what the checkout asks; the merchant reads the order, its export and the stats.
    await w.plain(
      "POST",
      "/devnet/control/transfer",
      JSON.stringify({ to: checkout.address, amount: checkout.amountExpected }),
    );
    const orders = async () =>
      ok(await w.live.GET("/v1/paylinks/{id}/orders", { params: { path: paylink } }), 200).data;
    await w.until("paid", async () => (await orders()).items[0]?.status === "CONFIRMED");
    const [order] = (await orders()).items;
    assertEquals([order.id, order.customerPhone, order.customerEmail], [
      checkout.orderId,
      "+22670123456",
      "fatou@example.com",
    ]);
    const csv = ok(
      await w.live.GET("/v1/paylinks/{id}/orders/export", { params: { path: paylink }, parseAs: "text" }),
      200,
    );
    assert(csv.includes(checkout.orderId), "the export lists the order");
    const stats = ok(await w.live.GET("/v1/paylinks/{id}/stats", { params: { path: paylink } }), 200).data;
    assertEquals(stats.paidOrders, 1);
    const stock = ok(await w.live.GET("/v1/paylinks/{id}", { params: { path: paylink } }), 200).data;
    assert("products" in stock && "stockQty" in stock.products[0], "the full record");
    assertEquals(stock.products[0].stockQty, 10);

    // The operator's list of pay-ins paid after a suspension: none here.
    const holds =
      ok(await w.operator.GET("/admin/api/payin-holds", { params: { query: { open: "true" } } }), 200)
        .data;
    assertEquals(holds.items, []);

    // The merchant closes the shop: the page and its checkout take no more orders.
    const closed = ok(
      await w.live.PATCH("/v1/paylinks/{id}", { params: { path: paylink }, body: { status: "INACTIVE" } }),
      200,
    )
      .data;
    assertEquals(closed.status, "INACTIVE");
    const late = await w.anonymous.POST("/v1/pay/link/{slug}/checkout", {
      params: { path: slug },
      body: {
        items: [{ productId: scarf.id, quantity: 1 }],
        paymentMethod: "USDT_TRC20",
        customerPhone: "+22670123456",
      },
    });
    assert(late.response.status >= 400 && late.error !== undefined, "an inactive paylink sells nothing");
  }),
);
