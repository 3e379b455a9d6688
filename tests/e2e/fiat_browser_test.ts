// Card and mobile money checkout in a real (headless) Chromium on a 360-pixel phone against the real
// server, by clicks and typing only: (a) a card paid on the acquirer's hosted form, back on our page
// which turns to paid without reloading, then back to the merchant; (b) a declined card; (c) mobile money
// by SMS code, a wrong code first; (d) mobile money by approval on the simulated phone in a second tab.
// No horizontal scroll on any page. Screenshots go to tests/e2e/screenshots/ (docs/ keeps copies of the best, updated by hand).
//
// Delays: the acquirer's "processing" page sends the customer back after 2 s, so the simulators answer
// after 5 s here (with 300 ms the outcome would be known before the customer is back, and the live switch
// would go untested). The approval scenario runs on a second server whose simulator never approves by
// itself (it approves SIMULATOR_DELAY_MS after creation), so the click on the phone is what approves.
import type { Page } from "playwright-core";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { hasChromium, launchBrowser, phoneContext } from "./browser.ts";
import { approvedMerchant, type RunningGateway, startGateway } from "./process.ts";

const ADMIN_TOKEN = "e2e-admin-token-0123456789";
const SHOTS = new URL("./screenshots/", import.meta.url).pathname;

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function openGateway(delayMs: number, label: string) {
  const dataDir = await Deno.makeTempDir({ prefix: `gateway-e2e-fiat-browser-${label}-` });
  const port = freePort();
  const gw: RunningGateway = await startGateway({
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    SIMULATOR_DELAY_MS: String(delayMs),
  });
  const { key } = await approvedMerchant(gw.url, ADMIN_TOKEN);
  const create = async (body: Record<string, unknown>) => {
    const res = await fetch(`${gw.url}/v1/payments`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = await res.json();
    assertEquals(res.status, 201, JSON.stringify(json));
    return json.data;
  };
  return {
    gw,
    create,
    async close() {
      await gw.stop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

async function assertNoOverflow(page: Page, where: string) {
  const width = await page.evaluate<number>("document.documentElement.scrollWidth");
  assert(width <= 360, `horizontal overflow on ${where}: scrollWidth ${width}`);
}

async function shot(page: Page, name: string) {
  await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true, scale: "css" });
}

/** The shown view of our page: the data-phase of the visible section(s). */
function shownPhase(page: Page): Promise<string> {
  return page.evaluate<string>(
    `Array.prototype.slice.call(document.querySelectorAll("[data-phase]")).filter(function(e){return !e.hidden})
      .map(function(e){return e.getAttribute("data-phase")}).join(",")`,
  );
}

/** Marks the document: the mark survives only if the page never reloads. */
async function markDocument(page: Page) {
  await page.evaluate("window.__noReload = 42");
}
async function assertNotReloaded(page: Page) {
  assertEquals(await page.evaluate<number | undefined>("window.__noReload"), 42, "the page did not reload");
}

Deno.test({
  name: "card and mobile money checkout in a 360 px browser: acquirer form, SMS code, approval, live switch",
  ignore: !hasChromium(),
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    await Deno.mkdir(SHOTS, { recursive: true });
    const shop = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen: () => {} },
      (req) =>
        new Response(
          `<!doctype html><meta name="viewport" content="width=device-width"><title>Boutique</title><h1>${
            new URL(req.url).pathname === "/merci" ? "Merci pour votre commande" : "Panier"
          }</h1>`,
          { headers: { "content-type": "text/html; charset=utf-8" } },
        ),
    );
    const shopUrl = `http://127.0.0.1:${shop.addr.port}`;
    const urls = { successUrl: `${shopUrl}/merci?order=42`, cancelUrl: `${shopUrl}/panier` };
    const main = await openGateway(5000, "main");
    let manual: Awaited<ReturnType<typeof openGateway>> | undefined;
    const browser = await launchBrowser();
    const problems: string[] = [];
    const watch = (page: Page, allowed: string[]) => {
      page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
      page.on("console", (m) => {
        // A wrong SMS code answers 400, which Chromium logs; that one is expected.
        const expected = /\/checkout\/pay_\w+\/otp/.test(m.location().url) && m.text().includes("400");
        if (m.type() === "error" && !expected) problems.push(`console: ${m.text()} (${m.location().url})`);
      });
      page.on("request", (r) => {
        const u = r.url();
        if (!allowed.some((a) => u.startsWith(a)) && !u.startsWith("data:")) {
          problems.push(`outside request: ${u}`);
        }
      });
    };
    try {
      await t.step(
        "(a) card: our page, the acquirer's form, back to our page turning paid, to the merchant",
        async () => {
          const p = await main.create({
            amount: "12500",
            paymentMethod: "CARD",
            customerName: "Awa Ouedraogo",
            customerEmail: "awa@example.bf",
            ...urls,
          });
          const checkoutUrl = `${main.gw.url}/checkout/${p.transactionId}`;
          const context = await phoneContext(browser);
          const page = await context.newPage();
          watch(page, [main.gw.url, shopUrl]);
          // The customer opens our page first (before paying): "continue to the secure card page".
          assertEquals((await page.goto(checkoutUrl))?.status(), 200);
          assertEquals(await shownPhase(page), "waiting");
          assertEquals((await page.locator("#amt").textContent())?.replace(/\s/g, " "), "12 500");
          await assertNoOverflow(page, "card checkout (before paying)");
          await shot(page, "fiat-card-360-before");
          await Promise.all([page.waitForURL(p.hostedPaymentUrl), page.locator("#cardpage").click()]);
          await assertNoOverflow(page, "acquirer's card form");
          await page.locator("#number").click();
          await page.keyboard.type("4242 4242 4242 4242");
          await page.locator("#expiry").click();
          await page.keyboard.type("12/39");
          await page.locator("#cvc").click();
          await page.keyboard.type("123");
          await shot(page, "fiat-card-360-acquirer-form");
          await page.locator('form button[type="submit"]').click();
          // The acquirer's "processing" page sends the customer back to our page by itself.
          await page.waitForURL(checkoutUrl, { timeout: 15_000 });
          await page.locator("#co").waitFor();
          await markDocument(page);
          assertEquals(await shownPhase(page), "waiting", "still processing when the customer is back");
          assert(await page.locator("text=Paiement par carte en cours").isVisible());
          await assertNoOverflow(page, "card checkout (processing)");
          await shot(page, "fiat-card-360-processing");
          await page.locator('[data-phase="paid"]').waitFor({ state: "visible", timeout: 15_000 });
          await assertNotReloaded(page);
          assertEquals(await shownPhase(page), "paid");
          assertEquals(await page.locator('[data-phase="paid"] h1').textContent(), "Paiement reçu");
          await assertNoOverflow(page, "card checkout (paid)");
          await shot(page, "fiat-card-360-paid");
          await Promise.all([page.waitForURL(`${shopUrl}/merci?order=42`), page.locator("#succ").click()]);
          assertEquals(await page.locator("h1").textContent(), "Merci pour votre commande");
          await context.close();
        },
      );

      await t.step("(b) a declined card: our page turns to failed, card declined", async () => {
        const p = await main.create({
          amount: "2500",
          paymentMethod: "CARD",
          customerName: "Awa Ouedraogo",
          customerEmail: "awa@example.bf",
          ...urls,
        });
        const checkoutUrl = `${main.gw.url}/checkout/${p.transactionId}`;
        const context = await phoneContext(browser);
        const page = await context.newPage();
        watch(page, [main.gw.url, shopUrl]);
        await page.goto(p.hostedPaymentUrl);
        await page.locator("#number").click();
        await page.keyboard.type("4000 0000 0000 0002");
        await page.locator("#expiry").click();
        await page.keyboard.type("12/39");
        await page.locator("#cvc").click();
        await page.keyboard.type("123");
        await page.locator('form button[type="submit"]').click();
        await page.waitForURL(checkoutUrl, { timeout: 15_000 });
        await page.locator("#co").waitFor();
        await markDocument(page);
        await page.locator('[data-phase="failed"]').waitFor({ state: "visible", timeout: 15_000 });
        await assertNotReloaded(page);
        assert(await page.locator("text=Paiement échoué").isVisible());
        assert(await page.locator('[data-reason="card_declined"]').isVisible(), "says: card declined");
        assert(!(await page.locator('[data-reason="other"]').isVisible()));
        await assertNoOverflow(page, "card checkout (failed)");
        await shot(page, "fiat-card-360-declined");
        await Promise.all([
          page.waitForURL(`${shopUrl}/panier`),
          page.locator('[data-phase="failed"] a.btn').click(),
        ]);
        await context.close();
      });

      await t.step("(c) mobile money by SMS code: a wrong code, then 123456, then paid", async () => {
        const p = await main.create({
          amount: "5000",
          paymentMethod: "MOBILE_MONEY",
          customerPhone: "+22654123456",
          ...urls,
        });
        assertEquals(p.nextStep, "otp");
        const context = await phoneContext(browser);
        const page = await context.newPage();
        watch(page, [main.gw.url, shopUrl]);
        await page.goto(p.hostedPaymentUrl);
        await markDocument(page);
        assertEquals(await shownPhase(page), "waiting");
        assertEquals((await page.locator("#amt").textContent())?.replace(/\s/g, " "), "5 000");
        assertEquals(await page.locator("#otp").getAttribute("inputmode"), "numeric");
        assertEquals(await page.locator("#otp").getAttribute("autocomplete"), "one-time-code");
        await assertNoOverflow(page, "mobile money OTP form");
        await shot(page, "fiat-momo-otp-360-form");
        await page.locator("#otp").click();
        await page.keyboard.type("111111");
        await page.locator("#otpf button").click();
        const error = page.locator('[data-err="OTP_INVALID"]');
        await error.waitFor({ state: "visible" });
        assertMatch((await error.textContent()) ?? "", /Code incorrect/);
        assertEquals(await page.locator("#otp").inputValue(), "", "the wrong code is cleared");
        await assertNotReloaded(page);
        await assertNoOverflow(page, "mobile money OTP error");
        await shot(page, "fiat-momo-otp-360-error");
        await page.locator("#otp").click();
        await page.keyboard.type("123456");
        await page.locator("#otpf button").click();
        await page.locator('[data-phase="processing"]').waitFor({ state: "visible" });
        assert(!(await error.isVisible()), "the error is gone");
        await assertNoOverflow(page, "mobile money processing");
        await shot(page, "fiat-momo-otp-360-processing");
        await page.locator('[data-phase="paid"]').waitFor({ state: "visible", timeout: 15_000 });
        await assertNotReloaded(page);
        await assertNoOverflow(page, "mobile money paid");
        await shot(page, "fiat-momo-otp-360-paid");
        await Promise.all([page.waitForURL(`${shopUrl}/merci?order=42`), page.locator("#succ").click()]);
        await context.close();
      });

      await t.step(
        "(d) mobile money by approval: Approve on the simulated phone, the first tab turns paid",
        async () => {
          manual = await openGateway(600_000, "manual");
          const p = await manual.create({
            amount: "3000",
            paymentMethod: "MOBILE_MONEY",
            customerPhone: "+22670123456",
            ...urls,
          });
          assertEquals(p.nextStep, "approval");
          const context = await phoneContext(browser, { locale: "en-US" });
          const page = await context.newPage();
          watch(page, [manual.gw.url, shopUrl]);
          await page.goto(p.hostedPaymentUrl);
          await markDocument(page);
          assertEquals(await page.locator("html").getAttribute("lang"), "en");
          assertEquals((await page.locator("#amt").textContent())?.replace(/\s/g, " "), "3,000");
          assert(await page.locator("text=Approve the request on your phone").isVisible());
          await assertNoOverflow(page, "mobile money approval waiting");
          await shot(page, "fiat-momo-approval-360-waiting");
          // The link opens the simulated phone in a second tab.
          const [phone] = await Promise.all([
            context.waitForEvent("page"),
            page.locator("#simphone").click(),
          ]);
          watch(phone, [manual.gw.url]);
          await phone.waitForLoadState();
          assertMatch(phone.url(), /\/simulators\/momo\/sim_momo_[0-9a-f]+/);
          await assertNoOverflow(phone, "simulated phone");
          await shot(phone, "fiat-momo-approval-360-phone");
          await phone.locator('form[action*="/approve"] button').click();
          await phone.waitForLoadState();
          await shot(phone, "fiat-momo-approval-360-phone-approved");
          await page.bringToFront();
          await page.locator('[data-phase="paid"]').waitFor({ state: "visible", timeout: 15_000 });
          await assertNotReloaded(page);
          assertEquals(await page.locator('[data-phase="paid"] h1').textContent(), "Payment received");
          await assertNoOverflow(page, "mobile money approval paid");
          await shot(page, "fiat-momo-approval-360-paid");
          await context.close();
        },
      );

      assertEquals(problems, [], problems.join("\n"));
    } finally {
      await browser.close();
      await main.close();
      await manual?.close();
      await shop.shutdown();
    }
  },
});
