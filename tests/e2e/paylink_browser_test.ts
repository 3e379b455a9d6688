// A customer on a 360-pixel phone pays a paylink in headless Chromium, by clicks and typing only: opens
// the link (its WebP cover decoded by the browser), adds two products, applies a promo code, picks USDT,
// pays (a transfer on the devnet, which is the customer's wallet), and sees the pay-in's page turn to paid
// with the digital download revealed (not before); the order is CONFIRMED, the stock decremented. A
// second customer pays by mobile money, approving on the simulated phone, and sees the order paid. The
// merchant's loopback receiver gets both signed payin.confirmed webhooks. Then two races in two browser
// contexts: the last item (one reaches a checkout, the other reads "sold out") and a promo code at its
// last use (one wins, the other reads the usage-limit message).
// The gateway is the whole app in-process (tests/helpers.ts) served on a local port, so the test can mine
// devnet blocks, run the scanner and run the webhook deliveries. Screenshots: docs/paylink-*.png.
import type { Browser, Page } from "playwright-core";
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { deliveryPump, handleWebhookDeliver } from "../../jobs/webhook_delivery.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { losslessWebp, lossyWebp, webpWithMetadata } from "../support/webp_fixtures.ts";
import { hasChromium, launchBrowser, phoneContext } from "./browser.ts";
import { startReceiver } from "./receiver.ts";

const DOCS = new URL("../../docs/", import.meta.url).pathname;
const PNG_1PX =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

async function noOverflow(page: Page, where: string) {
  const width = await page.evaluate<number>("document.documentElement.scrollWidth");
  assert(width <= 360, `horizontal overflow on ${where}: scrollWidth ${width}`);
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Runs the webhook deliveries queued so far, as the queue listener would (each delivery once). */
async function deliverWebhooks(gw: TestGateway, done: Set<string>) {
  for (const { message } of gw.enqueued) {
    if (message.type !== "webhook.deliver" || !message.deliveryId || done.has(message.deliveryId)) continue;
    done.add(message.deliveryId);
    await handleWebhookDeliver(message, gw.deps);
  }
  await deliveryPump(gw.deps).idle();
}

/** Where a click on Pay led: "checkout" (the pay-in's page) or the error the cart page shows. */
async function payOutcome(page: Page): Promise<string> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (/\/checkout\/pay_/.test(page.url())) {
      await page.waitForLoadState();
      return "checkout";
    }
    try {
      const err = page.locator("#err");
      if (await err.isVisible()) return (await err.textContent()) ?? "";
    } catch { /* navigating */ }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`neither a checkout nor an error on ${page.url()}`);
}

/** Two customers, each in a browser context of their own, on the same paylink page. */
async function twoCustomers(browser: Browser, url: string) {
  const contexts = [await phoneContext(browser), await phoneContext(browser)];
  const pages = [await contexts[0].newPage(), await contexts[1].newPage()];
  for (const p of pages) await p.goto(url);
  return { pages, close: () => Promise.all(contexts.map((c) => c.close())) };
}

Deno.test({
  name:
    "paylink on a 360 px phone: USDT and mobile money paid, signed webhooks, last-item and last-promo races",
  ignore: !hasChromium(),
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    // PUBLIC_URL is where the browser reaches the app, so image URLs on the pages load from it.
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const gw = await startTestGateway({ env: { PUBLIC_URL: base } });
    const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, gw.app.fetch);
    const browser = await launchBrowser();
    const receiver = startReceiver();
    const delivered = new Set<string>();
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
            // 10: one address (every browser here is 127.0.0.1) holds at most 20 % unpaid, so 2 pagnes.
            { name: "Pagne wax 6 yards", price: "6500", stockQty: 10, lowStockThreshold: 2 },
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
      const [pagne, bracelet, guide] = paylink.products;
      // The merchant listens for confirmed pay-ins on a loopback receiver (a sandbox endpoint: test key).
      const endpoint = await gw.request("POST", "/v1/webhooks/endpoints", {
        key,
        body: { url: receiver.url, events: ["payin.confirmed"] },
      });
      assertEquals(endpoint.status, 201, endpoint.text);
      receiver.setSecret(endpoint.json.data.secret);
      // A WebP cover (lossless, built by hand) and a WebP product image carrying EXIF, XMP and ICCP.
      const upload = async (path: string, bytes: Uint8Array) => {
        const form = new FormData();
        form.append(
          "file",
          new File([bytes as Uint8Array<ArrayBuffer>], "photo.webp", { type: "image/webp" }),
        );
        const res = await gw.app.request(path, { method: "POST", headers: { "x-api-key": key }, body: form });
        const json = await res.json();
        assertEquals(res.status, 200, JSON.stringify(json));
        return json.data;
      };
      const cover = await upload(
        `/v1/paylinks/${paylink.id}/cover-image`,
        losslessWebp(480, 180, [255, 0x9c, 0x2f, 0x12]),
      );
      assertMatch(cover.coverImageUrl, /\.webp$/);
      const braceletImage = await upload(
        `/v1/paylinks/${paylink.id}/products/${bracelet.id}/image`,
        await webpWithMetadata(40, 30),
      );
      assertMatch(braceletImage.imageUrl, /\.webp$/);
      // Translucent lossy: rewritten as VP8X (alpha flag only) + ALPH + VP8.
      const guideImage = await upload(
        `/v1/paylinks/${paylink.id}/products/${guide.id}/image`,
        await lossyWebp(24, 32, 0x11aa5580),
      );
      await scanChain(gw.deps); // the scanner starts following at the head

      const context = await phoneContext(browser);
      const page = await context.newPage();
      const url = `${base}/pay/link/${paylink.slug}`;
      await page.goto(url);
      assertMatch(await page.title(), /Pagnes et bijoux de Ouaga · Boutique Awa/);
      assertEquals(await page.textContent("[data-merchant]"), "Boutique Awa");
      // Chromium decodes the stored WebP cover; the download link is nowhere on the page before payment.
      await page.waitForFunction("document.querySelector('img.cover').complete");
      assertEquals(await page.evaluate<number>("document.querySelector('img.cover').naturalWidth"), 480);
      assert(!(await page.content()).includes("guide-tissus.pdf"), "digital link shown before payment");
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
      assert(!(await page.content()).includes("guide-tissus.pdf"), "digital link shown before payment");
      assertEquals(await page.locator("[data-downloads]").count(), 0);
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
      assertEquals(after.json.data.products.find((p: { id: string }) => p.id === pagne.id).stockQty, 8);
      const orderView = await gw.request("GET", `/v1/paylinks/${paylink.id}/orders`, { key });
      assertEquals(orderView.json.data.items.length, 1);

      // A second customer, in English, pays one bracelet by mobile money, approving on the simulated phone.
      const en = await phoneContext(browser, { locale: "en-US" });
      const p2 = await en.newPage();
      await p2.goto(url);
      // The product image is the WebP stored without its metadata, decoded by Chromium.
      const img = await en.newPage();
      await img.goto(braceletImage.imageUrl);
      assertEquals(await img.evaluate<number>("document.images[0].naturalWidth"), 40);
      await img.goto(guideImage.imageUrl);
      assertEquals(
        await img.evaluate<number[]>("[document.images[0].naturalWidth, document.images[0].naturalHeight]"),
        [
          24,
          32,
        ],
      );
      await img.close();
      await p2.locator(`[data-prod="${bracelet.id}"] [data-inc]`).click();
      await p2.check('input[value="MOBILE_MONEY"]');
      await p2.fill("#f-customerName", "Ali Traoré");
      await p2.fill("#f-customerPhone", "+22670123456");
      assertMatch(await p2.textContent("#tot") ?? "", /2,500 XOF/);
      await Promise.all([p2.waitForURL(/\/checkout\/pay_/), p2.click("#pay")]);
      const momoPayinId = new URL(p2.url()).pathname.split("/")[2];
      assertMatch(await p2.textContent("body") ?? "", /You are paying/);
      await noOverflow(p2, "momo checkout");
      await p2.screenshot({ path: `${DOCS}paylink-momo-checkout-360.png`, fullPage: true, scale: "css" });
      const [phone] = await Promise.all([en.waitForEvent("page"), p2.locator("#simphone").click()]);
      await phone.waitForLoadState();
      assertMatch(phone.url(), /\/simulators\/momo\/sim_momo_[0-9a-f]+/);
      await noOverflow(phone, "simulated phone");
      await phone.locator('form[action*="/approve"] button').click();
      await phone.waitForLoadState();
      await phone.close();
      await p2.bringToFront();
      await p2.locator('[data-phase="paid"]').waitFor({ state: "visible", timeout: 20_000 });
      assertEquals(await p2.locator('[data-phase="paid"] h1').textContent(), "Payment received");
      await noOverflow(p2, "momo paid");
      await p2.screenshot({ path: `${DOCS}paylink-momo-paid-360.png`, fullPage: true, scale: "css" });
      await en.close();
      await context.close();

      const momoOrder = (await gw.request("GET", `/v1/paylinks/${paylink.id}/orders`, { key })).json.data
        .items
        .find((o: { transactionId: string }) => o.transactionId === momoPayinId);
      assertEquals([momoOrder.status, momoOrder.customerName], ["CONFIRMED", "Ali Traoré"]);
      const stock = (await gw.request("GET", `/v1/paylinks/${paylink.id}`, { key })).json.data.products;
      assertEquals(stock.find((p: { id: string }) => p.id === bracelet.id).stockQty, 19);

      // The merchant's receiver: one signed payin.confirmed per order, verified with the endpoint secret.
      await deliverWebhooks(gw, delivered);
      for (const id of [payinId, momoPayinId]) {
        const hook = await receiver.waitFor((w) =>
          w.event === "payin.confirmed" && w.data.transactionId === id
        );
        assert(hook.signatureValid, `signature of ${id}`);
        assertEquals([hook.livemode, hook.data.status], [false, "CONFIRMED"]);
      }
      assertEquals(receiver.received.filter((w) => w.event === "payin.confirmed").length, 2);

      // Two customers race for the last item: one reaches a checkout, the other reads "sold out".
      const last = await gw.request("POST", "/v1/paylinks?sandbox=true", {
        key,
        body: {
          title: "Dernière pièce",
          currency: "XOF",
          products: [{ name: "Masque bobo ancien", price: "45000", stockQty: 1 }],
        },
      });
      assertEquals(last.status, 201, last.text);
      const race = await twoCustomers(browser, `${base}/pay/link/${last.json.data.slug}`);
      for (const [i, p] of race.pages.entries()) {
        await p.locator("[data-inc]").click();
        await p.check('input[value="MOBILE_MONEY"]');
        await p.fill("#f-customerPhone", `+2267012345${i}`);
      }
      await Promise.all(race.pages.map((p) => p.click("#pay")));
      const outcomes = await Promise.all(race.pages.map(payOutcome));
      assertEquals(outcomes.filter((o) => o === "checkout").length, 1, outcomes.join(" | "));
      const loser = race.pages[outcomes.indexOf("checkout") === 0 ? 1 : 0];
      assertEquals(
        outcomes.find((o) => o !== "checkout"),
        "Épuisé : un autre client vient de prendre le dernier article.",
      );
      await noOverflow(loser, "sold out");
      await loser.screenshot({ path: `${DOCS}paylink-soldout-360.png`, fullPage: true, scale: "css" });
      await loser.reload();
      assertEquals(await loser.textContent(".prod .av"), "Épuisé");
      assertEquals(await loser.locator("[data-inc]").count(), 0);
      await race.close();
      const lastOrders = await gw.request("GET", `/v1/paylinks/${last.json.data.id}/orders`, { key });
      assertEquals(lastOrders.json.data.items.length, 1);
      const lastAfter = await gw.request("GET", `/v1/paylinks/${last.json.data.id}`, { key });
      assertEquals(lastAfter.json.data.products[0].stockQty, 0);

      // A promo code at its last use, claimed by two at once: one checkout gets it, the other is told.
      const once = await gw.request("POST", `/v1/paylinks/${paylink.id}/promo-codes`, {
        key,
        body: { code: "DERNIER", discountType: "FIXED", discountValue: "500", maxUses: 1 },
      });
      assertEquals(once.status, 201, once.text);
      const promoRace = await twoCustomers(browser, url);
      for (const [i, p] of promoRace.pages.entries()) {
        await p.locator(`[data-prod="${bracelet.id}"] [data-inc]`).click();
        await p.fill("#promo", "dernier");
        await p.click("#apply");
        await p.waitForSelector("#promo-ok:not([hidden])"); // both previews accept it: one use is left
        await p.check('input[value="MOBILE_MONEY"]');
        await p.fill("#f-customerName", `Client ${i}`);
        await p.fill("#f-customerPhone", `+2267055544${i}`);
      }
      await Promise.all(promoRace.pages.map((p) => p.click("#pay")));
      const promoOutcomes = await Promise.all(promoRace.pages.map(payOutcome));
      assertEquals(promoOutcomes.filter((o) => o === "checkout").length, 1, promoOutcomes.join(" | "));
      assertEquals(
        promoOutcomes.find((o) => o !== "checkout"),
        "Ce code promo a atteint sa limite d'utilisation.",
      );
      const promoLoser = promoRace.pages[promoOutcomes.indexOf("checkout") === 0 ? 1 : 0];
      // The refused code no longer counts in the total the loser sees.
      assert(await promoLoser.locator("#promo-ok").isHidden(), "the refused code is not shown as applied");
      assertMatch(await promoLoser.textContent("#tot") ?? "", /2\s?500 XOF/);
      await noOverflow(promoLoser, "promo used up");
      await promoLoser.screenshot({
        path: `${DOCS}paylink-promo-used-360.png`,
        fullPage: true,
        scale: "css",
      });
      await promoRace.close();
      const codes = await gw.request("GET", `/v1/paylinks/${paylink.id}/promo-codes`, { key });
      const dernier = codes.json.data.items.find((c: { code: string }) => c.code === "DERNIER");
      assertEquals(dernier.useCount, 1);
      const withCode = (await gw.request("GET", `/v1/paylinks/${paylink.id}/orders`, { key })).json.data.items
        .filter((o: { promoCode: string | null }) => o.promoCode === "DERNIER");
      assertEquals(withCode.length, 1);
    } finally {
      await browser.close();
      await server.shutdown();
      await receiver.stop();
      await gw.close();
    }
  },
});
