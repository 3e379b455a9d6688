// The hosted paylink page (issue 12, item 6): French and English, whom the customer pays, the products
// with their availability, the rails with prices, the collected fields, Open Graph tags for WhatsApp, a
// strict CSP with nothing from another host, and never a digital link or a promo code list.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { withGateway } from "../helpers.ts";
import { makePaylink } from "../shop_fixture.ts";

Deno.test(
  "hosted paylink page",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Awa Diallo SARL");
    await gw.request("PATCH", "/v1/merchant/profile", {
      key: m.keys.testSecret,
      body: { displayName: "Boutique Awa" },
    });
    const { paylink } = await makePaylink(gw, m.merchantId, {
      title: "Pagnes de Ouaga",
      products: [
        { name: "Pagne wax", price: "5000", stockEnabled: true, stockQty: 2, lowStockThreshold: 3 },
        { name: "Épuisé", price: "100", stockEnabled: true, stockQty: 0 },
        {
          name: "Guide",
          price: "2000",
          productType: "DIGITAL",
          digitalUrl: "https://files.example/secret.pdf",
        },
      ],
      promos: [{ code: "SECRETCODE", type: "PERCENT", value: "10" }],
      fields: { brand_color: "#aa3300", collect_address: "REQUIRED", description: "Livraison à Ouaga" },
    });
    const res = await gw.app.request(`/pay/link/${paylink.slug}`);
    assertEquals(res.status, 200);
    const html = await res.text();
    assertMatch(html, /<html lang="fr">/);
    assertMatch(html, /Vendu par <b data-merchant>Boutique Awa<\/b>/);
    assertMatch(html, /<h1>Pagnes de Ouaga<\/h1>/);
    assertMatch(html, /property="og:title" content="Pagnes de Ouaga"/);
    assertMatch(html, /property="og:description" content="Livraison à Ouaga"/);
    assertMatch(html, new RegExp(`property="og:url" content="[^"]*/pay/link/${paylink.slug}"`));
    assertMatch(html, /--brand:#aa3300/);
    assertMatch(html, /Plus que 2 en stock/);
    assertMatch(html, /Épuisé<\/p><p class="pr">[^<]*<\/p><p class="av">Épuisé/);
    for (const rail of ["USDT_TRC20", "CARD", "MOBILE_MONEY"]) assert(html.includes(`value="${rail}"`), rail);
    assertMatch(html, /data-field="customerAddress" data-rule="REQUIRED"/);
    // The e-mail is required: the paylink sells a digital product.
    assertMatch(html, /data-field="customerEmail" data-rule="REQUIRED"/);
    assertMatch(html, /id="promo"/);
    for (const secret of ["files.example", "SECRETCODE", "Awa Diallo SARL", "digitalUrl"]) {
      assert(!html.includes(secret), `leaks ${secret}`);
    }
    const csp = res.headers.get("content-security-policy") ?? "";
    assertMatch(csp, /default-src 'none'/);
    assertMatch(csp, /img-src data: 'self'/);
    assert(!csp.includes("unsafe-inline"));
    assert(!/<(script|link)[^>]+src=/.test(html), "no outside script or stylesheet");
    assert(!/\sstyle="/.test(html), "no style attributes (the CSP would block them)");
    assert(html.length < 30_000, `${html.length} bytes`);

    const en = await (await gw.app.request(`/pay/link/${paylink.slug}?lang=en`)).text();
    assertMatch(en, /Sold by <b data-merchant>Boutique Awa/);
    assertMatch(en, /Only 2 left/);

    const missing = await gw.app.request("/pay/link/no-such-link", { headers: { "accept-language": "en" } });
    assertEquals(missing.status, 404);
    assertMatch(await missing.text(), /Link not found/);
    for (const slug of ["%00", "..%2f..", "x".repeat(500), "%F0%9F%92%A9"]) {
      const r = await gw.app.request(`/pay/link/${slug}`);
      assert(r.status === 404 || r.status === 400, `${slug} -> ${r.status}`);
      await r.body?.cancel();
    }

    // A closed paylink shows why and offers nothing to buy.
    await gw.db.query("UPDATE paylinks SET status = 'INACTIVE' WHERE id = $1", [paylink.id]);
    const closed = await (await gw.app.request(`/pay/link/${paylink.slug}`)).text();
    assertMatch(closed, /n'accepte plus de commandes/);
    assert(!closed.includes('id="cart"'));
  }),
);
