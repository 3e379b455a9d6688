// A customer on a 360-pixel phone pays a paylink in headless Chromium, by clicks and typing only: opens
// the link, adds two products, applies a promo code, picks USDT, pays (a transfer on the devnet, which is
// the customer's wallet), and sees the pay-in's page turn to paid with the digital download revealed;
// the order is CONFIRMED, the stock decremented. A second customer pays by mobile money on the simulator.
// The gateway is the whole app in-process (tests/helpers.ts) served on a local port, so the test can mine
// devnet blocks and run the scanner. Screenshots: docs/paylink-*.png.
import type { Page } from "playwright-core";
import { scanChain } from "../../domain/chain_scanner.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { hasChromium, launchBrowser, phoneContext } from "./browser.ts";

const DOCS = new URL("../../docs/", import.meta.url).pathname;
const PNG_1PX =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

async function noOverflow(page: Page, where: string) {
  const width = await page.evaluate<number>("document.documentElement.scrollWidth");
  assert(width <= 360, `horizontal overflow on ${where}: scrollWidth ${width}`);
}

Deno.test({
  name: "a customer pays a paylink on a 360 px phone: two products, a promo code, USDT, then mobile money",
  ignore: !hasChromium(),
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const gw = await startTestGateway();
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, gw.app.fetch);
    const base = `http://127.0.0.1:${server.addr.port}`;
    const browser = await launchBrowser();
    try {
      const m = await gw.createMerchant("Awa Diallo SARL");
      const key = m.keys.testSecret;
      await gw.request("PATCH", "/v1/merchant/profile", {
        key,
        body: { displayName: "Boutique Awa", logoUrl: `data:image/png;base64,${PNG_1PX}` },
      });
      const created = await gw.request("POST", "/v1/paylinks?sandbox=true", {
        key,
        body: {
          title: "Pagnes et bijoux de Ouaga",
          description: "Livraison à Ouagadougou sous 48 h",
          currency: "XOF",
          brandColor: "#9c2f12",
          collectName: "REQUIRED",
          collectPhone: "OPTIONAL",
          products: [
            { name: "Pagne wax 6 yards", price: "6500", stockQty: 5, lowStockThreshold: 2 },
            { name: "Bracelet bronze", price: "2500", stockQty: 20 },
            {
              name: "Guide des tissus (PDF)",
              price: "1500",
              productType: "DIGITAL",
              digitalUrl: "https://files.example/guide-tissus.pdf",
            },
          ],
        },
      });
      assertEquals(created.status, 201, created.text);
      const paylink = created.json.data;
      const promo = await gw.request("POST", `/v1/paylinks/${paylink.id}/promo-codes`, {
        key,
        body: { code: "TABASKI", discountType: "PERCENT", discountValue: "10" },
      });
      assertEquals(promo.status, 201, promo.text);
      const [pagne, , guide] = paylink.products;
      await scanChain(gw.deps); // the scanner starts following at the head

      const context = await phoneContext(browser);
      const page = await context.newPage();
      const url = `${base}/pay/link/${paylink.slug}`;
      await page.goto(url);
      assertMatch(await page.title(), /Pagnes et bijoux de Ouaga · Boutique Awa/);
      assertEquals(await page.textContent("[data-merchant]"), "Boutique Awa");
      await noOverflow(page, "paylink page");
      await page.screenshot({ path: `${DOCS}paylink-360.png`, fullPage: true, scale: "css" });

      // Two products: 2 pagnes, 1 guide.
      const row = (id: string) => page.locator(`[data-prod="${id}"]`);
      await row(pagne.id).locator("[data-inc]").click();
      await row(pagne.id).locator("[data-inc]").click();
      await row(guide.id).locator("[data-inc]").click();
      assertMatch(await page.textContent("#sub") ?? "", /14\s?500 XOF/);
      await page.fill("#promo", "tabaski");
      await page.click("#apply");
      await page.waitForSelector("#promo-ok:not([hidden])");
      assertMatch(await page.textContent("#disc") ?? "", /1\s?450 XOF/);
      await page.fill("#f-customerName", "Fatou Ouédraogo");
      await page.fill("#f-customerEmail", "fatou@example.com");
      await page.check('input[value="USDT_TRC20"]');
      await page.waitForSelector("#lock:not([hidden])");
      assertMatch(await page.textContent("#tot") ?? "", /USDT/);
      await noOverflow(page, "cart");
      await page.screenshot({ path: `${DOCS}paylink-cart-360.png`, fullPage: true, scale: "css" });

      await Promise.all([page.waitForURL(/\/checkout\/pay_/), page.click("#pay")]);
      const payinId = new URL(page.url()).pathname.split("/")[2];
      assertEquals(await page.textContent("[data-merchant]"), "Boutique Awa");
      assertMatch(await page.textContent("[data-ref]") ?? "", /2 × Pagne wax 6 yards/);
      await noOverflow(page, "USDT checkout");
      await page.screenshot({ path: `${DOCS}paylink-usdt-checkout-360.png`, fullPage: true, scale: "css" });

      // The customer's wallet sends exactly what the page asks.
      const amount = (await page.textContent("#amt"))!.trim();
      const units = BigInt(Math.round(Number(amount) * 1e6));
      const address = (await page.textContent("#adr"))!.trim();
      gw.devnet.transferUsdt(address, units);
      gw.devnet.mine(6);
      await scanChain(gw.deps);
      await scanChain(gw.deps);
      // The page reloads itself when paid (an order with a download) and reveals the link.
      await page.waitForSelector("[data-downloads]", { timeout: 20_000 });
      assertEquals(
        await page.getAttribute("[data-downloads] a", "href"),
        "https://files.example/guide-tissus.pdf",
      );
      await noOverflow(page, "paid");
      await page.screenshot({ path: `${DOCS}paylink-paid-360.png`, fullPage: true, scale: "css" });

      const orders = await gw.request("GET", `/v1/paylinks/${paylink.id}/orders`, { key });
      const order = orders.json.data.items[0];
      assertEquals(order.transactionId, payinId);
      assertEquals(order.status, "CONFIRMED");
      assertEquals(order.promoCode, "TABASKI");
      assertEquals(order.customerName, "Fatou Ouédraogo");
      const after = await gw.request("GET", `/v1/paylinks/${paylink.id}`, { key });
      assertEquals(after.json.data.products.find((p: { id: string }) => p.id === pagne.id).stockQty, 3);
      const events = await gw.db.query<{ type: string }>(
        "SELECT type FROM events WHERE merchant_id = $1 ORDER BY created_at",
        [m.merchantId],
      );
      assert(events.some((e) => e.type === "payin.confirmed"), "merchant's payin.confirmed event");

      // A second customer, in English, pays one bracelet by mobile money (the simulator's approval).
      const en = await phoneContext(browser, { locale: "en-US" });
      const p2 = await en.newPage();
      await p2.goto(url);
      await p2.locator(`[data-prod="${paylink.products[1].id}"] [data-inc]`).click();
      await p2.check('input[value="MOBILE_MONEY"]');
      await p2.fill("#f-customerName", "Ali Traoré");
      await p2.fill("#f-customerPhone", "+22670123456");
      assertMatch(await p2.textContent("#tot") ?? "", /2,500 XOF/);
      await Promise.all([p2.waitForURL(/\/checkout\/pay_/), p2.click("#pay")]);
      assertMatch(await p2.textContent("body") ?? "", /You are paying/);
      await noOverflow(p2, "momo checkout");
      await p2.screenshot({ path: `${DOCS}paylink-momo-checkout-360.png`, fullPage: true, scale: "css" });
      await en.close();
      await context.close();
    } finally {
      await browser.close();
      await server.shutdown();
      await gw.close();
    }
  },
});
