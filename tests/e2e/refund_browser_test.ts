// The hosted USDT refund page in headless Chromium on a 360-pixel phone: the customer opens the signed link
// the merchant sent, sees the amount, gives a TRON address (a typo first: refused in place), and sees where
// the refund goes. No horizontal scroll, nothing from another host, French and English.
// Screenshots: tests/e2e/screenshots/ (the form is copied to docs/refund-page.png).
import { Decimal } from "../../domain/money.ts";
import { settleUsdtReceipt } from "../../domain/payins/settle.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { randomTronAddress } from "../money_out_helpers.ts";
import { approve, askRefund, getRefund } from "../refund_fixture.ts";
import { hasChromium, launchBrowser, phoneContext, watchPage } from "./browser.ts";

const SHOTS = new URL("./screenshots/", import.meta.url).pathname;

Deno.test({
  name: "USDT refund page in a 360 px browser: amount shown, a typo refused, the address set",
  ignore: !hasChromium(),
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const gw = await startTestGateway();
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, gw.app.fetch);
    const base = `http://127.0.0.1:${server.addr.port}`;
    const browser = await launchBrowser();
    try {
      await Deno.mkdir(SHOTS, { recursive: true });
      const m = await gw.createMerchant("Boutique Ouaga");
      const key = m.keys.liveSecret;
      const created = await gw.request("POST", "/v1/payments", { key, body: { amount: "40" } });
      const payinId = created.json.data.transactionId;
      await settleUsdtReceipt(gw.deps, payinId, () =>
        Promise.resolve({
          received: new Decimal(created.json.data.amountExpected),
          txHash: "cd".repeat(32),
          transferKeys: [],
        }));
      const refund = (await askRefund(gw, key, payinId, { amount: "12.5" })).json.data;
      await approve(gw, refund.refundId);
      const url = new URL((await getRefund(gw, key, refund.refundId)).customerPageUrl);

      const context = await phoneContext(browser);
      const page = await context.newPage();
      const { foreign, problems } = watchPage(page, [base]);
      await page.goto(`${base}${url.pathname}${url.search}`);
      assertMatch(await page.locator("h1").innerText(), /Remboursement de Boutique Ouaga/);
      assertMatch(await page.locator("[data-amount]").innerText(), /12\.500000\s+USDT/);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert(width <= 360, `no horizontal scroll (${width} px)`);
      await page.screenshot({ path: `${SHOTS}refund-page-360.png`, fullPage: true });

      const address = randomTronAddress();
      await page.locator("#address").fill(address.slice(0, 33) + (address.endsWith("1") ? "2" : "1"));
      await page.locator("button[type=submit]").click();
      await page.waitForLoadState();
      assertMatch(await page.locator(".err").innerText(), /adresse TRON/);
      await page.screenshot({ path: `${SHOTS}refund-page-typo-360.png`, fullPage: true });
      assertEquals((await getRefund(gw, key, refund.refundId)).status, "APPROVED");

      await page.locator("#address").fill(address);
      await page.locator("button[type=submit]").click();
      await page.waitForLoadState();
      assertEquals(await page.locator("[data-address]").innerText(), address);
      assert((await page.evaluate(() => document.documentElement.scrollWidth)) <= 360);
      await page.screenshot({ path: `${SHOTS}refund-page-sent-360.png`, fullPage: true });
      const r = await getRefund(gw, key, refund.refundId);
      assertEquals([r.status, r.destinationAddress], ["PROCESSING", address]);

      const english = await context.newPage();
      await english.goto(`${base}${url.pathname}${url.search}&lang=en`);
      assertMatch(await english.locator("h1").innerText(), /Refund from Boutique Ouaga/);
      assertMatch(await english.locator(".st").innerText(), /on its way/);
      assertEquals(foreign, []);
      // The refused typo answers 400 (the form again, with its message): Chromium logs that status, nothing else.
      assertEquals(problems.filter((p) => !p.includes("status of 400")), []);
      assertEquals(problems.length, 1);
      await context.close();
    } finally {
      await browser.close();
      await server.shutdown();
      await gw.close();
    }
  },
});
