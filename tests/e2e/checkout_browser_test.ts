// The hosted checkout page in a real (headless) Chromium on a 360-pixel phone, against the real server
// and its devnet: no horizontal scroll, copy button, payment seen and confirmed live without a reload,
// back to the merchant's successUrl. Saves screenshots to tests/e2e/screenshots/ (docs/checkout-360.png
// is a copy of the paid view, updated by hand for the README).
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { hasChromium, launchBrowser, phoneContext } from "./browser.ts";
import { approvedMerchant, startGateway, until } from "./process.ts";

const ADMIN_TOKEN = "e2e-admin-token-0123456789";
const SHOTS = new URL("./screenshots/", import.meta.url).pathname;

Deno.test({
  name: "checkout page in a 360 px browser: copy, live confirmations, paid view, back to the merchant",
  ignore: !hasChromium(),
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "gateway-e2e-checkout-" });
    // The merchant's shop: only needs to answer the customer sent back to it.
    const shop = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen: () => {} },
      () =>
        new Response("<!doctype html><title>Merci</title><h1>Merci pour votre commande</h1>", {
          headers: { "content-type": "text/html; charset=utf-8" },
        }),
    );
    const shopUrl = `http://127.0.0.1:${shop.addr.port}`;
    const gw = await startGateway({ DATA_DIR: dataDir, ADMIN_TOKEN, DEVNET_BLOCK_MS: "500" });
    const browser = await launchBrowser();
    try {
      const { key } = await approvedMerchant(gw.url, ADMIN_TOKEN);
      const created = await (await fetch(`${gw.url}/v1/payments`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({
          amount: "10",
          successUrl: `${shopUrl}/merci?order=42`,
          cancelUrl: `${shopUrl}/panier`,
        }),
      })).json();
      const p = created.data;
      assertEquals(p.amountExpected, "11.500000");
      // PUBLIC_URL cannot know the random port: open the page on the server's own URL.
      const checkoutUrl = `${gw.url}/checkout/${p.transactionId}`;

      const origin = new URL(gw.url).origin;
      const context = await phoneContext(browser, { origin });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") problems.push(`console: ${m.text()}`);
      });
      page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
      const foreign: string[] = [];
      page.on("request", (r) => {
        const u = r.url();
        if (!u.startsWith(origin) && !u.startsWith("data:") && !u.startsWith(shopUrl)) foreign.push(u);
      });

      const response = await page.goto(checkoutUrl, { waitUntil: "load" });
      assertEquals(response?.status(), 200);
      assertEquals(await page.locator("html").getAttribute("lang"), "fr");
      await page.locator("#adr").waitFor();
      assertEquals((await page.locator("#adr").textContent())?.trim(), p.address);
      assertEquals(await page.locator("#amt").textContent(), "11.50");
      // Browser-side code is passed as text: this file is type-checked without the DOM library.
      const scrollWidth = () => page.evaluate<number>("document.documentElement.scrollWidth");
      const width = await scrollWidth();
      assert(width <= 360, `horizontal overflow: scrollWidth ${width}`);
      // The countdown runs: mm:ss, going down.
      const cd1 = await page.locator("[data-cd]").textContent();
      assertMatch(cd1 ?? "", /^(29|30):\d\d$/);
      await until(
        "the countdown to tick",
        async () => (await page.locator("[data-cd]").textContent()) !== cd1 || undefined,
      );
      // Tap targets are large enough for a thumb.
      for (const sel of ['button[data-copy="amt"]', 'button[data-copy="adr"]']) {
        const box = await page.locator(sel).boundingBox();
        assert(box && box.height >= 44, `${sel} is ${box?.height}px tall`);
      }
      await Deno.mkdir(SHOTS, { recursive: true });
      await page.screenshot({ path: `${SHOTS}checkout-360-waiting.png`, fullPage: true, scale: "css" });

      // Copy the address: the button says so, and the clipboard holds the address.
      await page.locator('button[data-copy="adr"]').click();
      await page.locator('button[data-copy="adr"]', { hasText: "Copié" }).waitFor({ timeout: 3000 });
      assertEquals(await page.evaluate<string>("navigator.clipboard.readText()"), p.address);

      // A marker that a reload would wipe: the page must update in place.
      await page.evaluate(() => ((globalThis as unknown as { __kept: number }).__kept = 42));
      const sent = await (await fetch(`${gw.url}/devnet/control/transfer`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ to: p.address, amount: "11.5" }),
      })).json();
      assertMatch(sent.txID, /^[0-9a-f]{64}$/);

      const confirming = page.locator('[data-phase="confirming"]');
      await confirming.waitFor({ state: "visible", timeout: 20_000 });
      assertMatch((await confirming.textContent()) ?? "", /confirmation : \d \/ 5/);
      assertMatch((await confirming.textContent()) ?? "", /11\.50 USDT/);
      await page.screenshot({ path: `${SHOTS}checkout-360-confirming.png`, fullPage: true, scale: "css" });

      const paid = page.locator('[data-phase="paid"]');
      await paid.waitFor({ state: "visible", timeout: 30_000 });
      assertEquals(await page.evaluate(() => (globalThis as unknown as { __kept?: number }).__kept), 42);
      assertMatch((await paid.textContent()) ?? "", /Paiement reçu/);
      assert(await confirming.isHidden());
      assert(await page.locator('[data-phase="waiting"]').isHidden());
      assert((await scrollWidth()) <= 360);
      await page.screenshot({ path: `${SHOTS}checkout-360-paid.png`, fullPage: true, scale: "css" });

      // Back to the merchant (the page would also go there by itself after a few seconds).
      await Promise.all([
        page.waitForURL(`${shopUrl}/merci?order=42`, { timeout: 10_000 }),
        page.click("#succ"),
      ]);
      assertMatch((await page.locator("h1").textContent()) ?? "", /Merci/);

      // English by ?lang=en, in a fresh page.
      const en = await context.newPage();
      await en.goto(`${checkoutUrl}?lang=en`);
      assertMatch((await en.locator('[data-phase="paid"]').textContent()) ?? "", /Payment received/);

      // Without a clipboard API (old browser, plain http): the copy button selects the text instead.
      const old = await context.newPage();
      await old.addInitScript("Object.defineProperty(navigator, 'clipboard', { value: undefined })");
      const fresh = await (await fetch(`${gw.url}/v1/payments`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ amount: "7" }),
      })).json();
      await old.goto(`${gw.url}/checkout/${fresh.data.transactionId}`);
      await old.locator('button[data-copy="amt"]').click();
      await old.locator('button[data-copy="amt"]', { hasText: /Copié|Sélectionnez/ }).waitFor({
        timeout: 3000,
      });
      assertEquals(
        await old.evaluate<string>("String(getSelection())"),
        "8.50",
        "only the number is selected",
      );

      // Without JavaScript: the same page, static, no copy buttons, reloading itself.
      const noJs = await browser.newContext({
        viewport: { width: 360, height: 740 },
        javaScriptEnabled: false,
      });
      const still = await noJs.newPage();
      await still.goto(`${gw.url}/checkout/${fresh.data.transactionId}`);
      assert(await still.locator("#adr").isVisible());
      assert(await still.locator("img.qr").isVisible());
      assert(await still.locator('button[data-copy="adr"]').isHidden());
      assertEquals(await still.locator('noscript meta[http-equiv="refresh"]').count(), 1);
      assert((await still.evaluate<number>("document.documentElement.scrollWidth")) <= 360);
      await noJs.close();

      assertEquals(problems, [], "no console errors, no CSP violations");
      assertEquals(foreign, [], "no request leaves the gateway");
      await context.close();
    } finally {
      await browser.close();
      await gw.stop();
      await shop.shutdown();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
