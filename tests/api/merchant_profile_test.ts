// Whom the customer pays (issue 12, item 7): a merchant sets the display name and logo customers see,
// bad logos are refused by their bytes, and every hosted checkout (USDT, card, mobile money) shows the
// merchant and the order's reference, with a monogram when there is no logo.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { withGateway } from "../helpers.ts";

// A real 1x1 PNG.
const PNG_1PX =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const LOGO = `data:image/png;base64,${PNG_1PX}`;

Deno.test(
  "merchant profile: display name and logo on every hosted checkout",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("ACME SARL internal");
    const key = m.keys.testSecret;
    const other = await gw.createMerchant("Other");

    let res = await gw.request("GET", "/v1/merchant/profile", { key });
    assertEquals(res.status, 200);
    assertEquals(res.json.data, {
      merchantId: m.merchantId,
      displayName: "ACME SARL internal",
      logoUrl: null,
    });

    // A payin without a logo: the page shows a monogram, the name and the reference.
    const create = async (body: Record<string, unknown>) => {
      const r = await gw.request("POST", "/v1/payments?sandbox=true", { key, body });
      assertEquals(r.status, 201, r.text);
      return r.json.data.transactionId as string;
    };
    const usdt = await create({ amount: "12", metadata: { description: "2 × Pagne wax" } });
    let html = (await gw.request("GET", `/checkout/${usdt}`)).text;
    assertMatch(html, /Vous payez/);
    assertMatch(html, /data-merchant>ACME SARL internal</);
    assertMatch(html, /class="logo mono"[^>]*>AS</);
    assertMatch(html, /data-ref>2 × Pagne wax</);

    // Bad logos: not a data URL, wrong bytes, declared type contradicting the bytes, too big, wrong types.
    for (
      const logoUrl of [
        "https://cdn.example/logo.png",
        "data:image/png;base64,AAAAAAAA",
        `data:image/jpeg;base64,${PNG_1PX}`,
        `data:image/png;base64,${btoa("\x89PNG\r\n\x1a\n" + "x".repeat(60_000))}`,
        "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=",
        "data:image/png;base64,%%%",
        42,
        ["x"],
        "\ud800",
      ]
    ) {
      res = await gw.request("PATCH", "/v1/merchant/profile", { key, body: { logoUrl } });
      assertEquals(res.status, 400, `${String(logoUrl).slice(0, 40)}: ${res.text}`);
      assertEquals(res.json.error.code, "VALIDATION_ERROR");
    }
    for (const displayName of ["", "x".repeat(81), "a\u0000b", 7]) {
      res = await gw.request("PATCH", "/v1/merchant/profile", { key, body: { displayName } });
      assertEquals(res.status, 400, res.text);
    }
    res = await gw.request("PATCH", "/v1/merchant/profile", { key, body: { other: 1 } });
    assertEquals(res.status, 400);
    res = await gw.request("PATCH", "/v1/merchant/profile", { key: m.keys.testPublishable, body: {} });
    assertEquals(res.status, 403);
    res = await gw.request("PATCH", "/v1/merchant/profile", { body: { displayName: "x" } });
    assertEquals(res.status, 401);

    res = await gw.request("PATCH", "/v1/merchant/profile", {
      key,
      body: { displayName: "Boutique Awa", logoUrl: LOGO },
    });
    assertEquals(res.status, 200, res.text);
    assertEquals(res.json.data.displayName, "Boutique Awa");
    assertEquals(res.json.data.logoUrl, LOGO);
    // The other merchant is untouched.
    res = await gw.request("GET", "/v1/merchant/profile", { key: other.keys.testSecret });
    assertEquals(res.json.data.displayName, "Other");

    // Existing and new pay-ins on every rail show the new name and the logo; English too.
    const card = await create({
      amount: "5000",
      paymentMethod: "CARD",
      customerName: "Awa",
      customerEmail: "awa@example.com",
      externalRef: "CMD-2024-17",
    });
    const momo = await create({
      amount: "5000",
      paymentMethod: "MOBILE_MONEY",
      customerPhone: "+22670123456",
    });
    for (const id of [usdt, card, momo]) {
      html = (await gw.request("GET", `/checkout/${id}?lang=en`)).text;
      assertMatch(html, /You are paying/);
      assertMatch(html, /data-merchant>Boutique Awa</);
      assert(html.includes(`src="${LOGO}"`), "logo shown");
      assert(!html.includes("ACME SARL internal"));
      assertMatch(html, /<title>Boutique Awa · /);
    }
    assertMatch((await gw.request("GET", `/checkout/${card}`)).text, /data-ref>CMD-2024-17</);

    // The operator sets it too, and may clear the logo.
    res = await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
      logoUrl: null,
      displayName: "Awa",
    });
    assertEquals(res.status, 200, res.text);
    assertEquals(res.json.data.displayName, "Awa");
    assertEquals(res.json.data.logoUrl, null);
    html = (await gw.request("GET", `/checkout/${usdt}`)).text;
    assertMatch(html, /class="logo mono"[^>]*>A</);
  }),
);
