// The subscriber's pages in headless Chromium on a 360-pixel phone: the renewal page (no horizontal
// scroll, nothing from another host), paying it by mobile money through the pay-in's checkout, then the
// signed cancel link's confirm page and its done page. The gateway runs in-process behind Deno.serve with
// a manual clock, so a month passes in a line. Screenshots: tests/e2e/screenshots/ (copied to docs/).
import { manualClock } from "../../domain/clock.ts";
import { deliverWebhook } from "../../domain/webhook_delivery.ts";
import { handleSubscriptionCron } from "../../jobs/subscriptions.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { linkIn, makeRecurringPaylink, outbox, paidCheckout, renewalsOf } from "../subscription_fixture.ts";
import { hasChromium, launchBrowser, phoneContext } from "./browser.ts";

const SHOTS = new URL("./screenshots/", import.meta.url).pathname;

Deno.test({
  name: "renewal and cancel pages in a 360 px browser: pay a renewal by mobile money, cancel by the link",
  ignore: !hasChromium(),
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const clock = manualClock(new Date("2026-01-15T10:00:00.000Z"));
    const gw = await startTestGateway({ clock });
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, gw.app.fetch);
    const base = `http://127.0.0.1:${server.addr.port}`;
    const browser = await launchBrowser();
    try {
      await Deno.mkdir(SHOTS, { recursive: true });
      const m = await gw.createMerchant("Ferme Awa");
      const key = m.keys.testSecret;
      const { paylink, products } = await makeRecurringPaylink(gw, m.merchantId);
      await gw.db.query("UPDATE paylinks SET brand_color = '#1f7a3a' WHERE id = $1", [paylink.id]);
      await paidCheckout(gw, key, paylink.slug, products[0].id);
      const sub = (await gw.request("GET", "/v1/subscriptions", { key })).json.data.items[0];
      clock.set(new Date("2026-02-15T10:00:00.000Z"));
      await handleSubscriptionCron(gw.deps);
      const [renewal] = await renewalsOf(gw, sub.id);
      const [mail] = await outbox(gw, renewal.id);
      const renewalPath = linkIn(mail.text, "/subscriptions/renewals/");

      const context = await phoneContext(browser);
      const page = await context.newPage();
      const foreign: string[] = [];
      const problems: string[] = [];
      page.on("request", (r) => {
        if (!r.url().startsWith(base) && !r.url().startsWith("data:")) foreign.push(r.url());
      });
      page.on("console", (msg) => {
        if (msg.type() === "error") problems.push(msg.text());
      });
      page.on("pageerror", (e) => problems.push(e.message));

      await page.goto(`${base}${renewalPath}`);
      assertMatch(await page.locator("h1").innerText(), /Renouvellement de l'abonnement/);
      assertMatch(await page.locator("[data-amount]").innerText(), /5000\s+FCFA par mois/);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert(width <= 360, `no horizontal scroll (${width} px)`);
      await page.screenshot({ path: `${SHOTS}subscription-renewal-360.png`, fullPage: true });

      await page.locator('button[data-rail="MOBILE_MONEY"]').click();
      await page.waitForURL(/\/checkout\/pay_/);
      assertMatch(await page.locator("[data-merchant]").first().innerText(), /Ferme Awa/);
      const payinId = /\/checkout\/(pay_[0-9a-z]+)/.exec(page.url())![1];
      const paid = await gw.request("POST", `/v1/sandbox/payments/${payinId}/simulate`, { key });
      assertEquals(paid.status, 200, paid.text);
      await page.goto(`${base}${renewalPath}`);
      assertMatch(await page.locator("h1").innerText(), /Renouvellement payé/);

      await page.locator("a[data-cancel]").click();
      await page.waitForURL(/\/cancel\?token=/);
      assertMatch(await page.locator("h1").innerText(), /Résilier votre abonnement/);
      await page.screenshot({ path: `${SHOTS}subscription-cancel-360.png`, fullPage: true });
      await page.locator("button[data-confirm-cancel]").click();
      await page.waitForLoadState();
      assertMatch(await page.locator("h1").innerText(), /Abonnement résilié/);
      await page.screenshot({ path: `${SHOTS}subscription-cancelled-360.png`, fullPage: true });
      const after = (await gw.request("GET", `/v1/subscriptions/${sub.id}`, { key })).json.data;
      assertEquals(after.status, "CANCELLED");
      assertEquals(after.cancelledBy, "CUSTOMER");
      assertEquals(foreign, [], "nothing loaded from another host");
      assertEquals(problems, [], "no console errors (CSP included)");
      await context.close();
    } finally {
      await browser.close();
      await server.shutdown();
      await gw.close();
    }
  },
});

/** A merchant's receiver: every delivery with its raw body and signature header, in arrival order. */
function startHookReceiver() {
  const got: Array<{ raw: string; signature: string }> = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    got.push({ raw: await req.text(), signature: req.headers.get("service-signature") ?? "" });
    return new Response("ok");
  });
  return { url: `http://127.0.0.1:${server.addr.port}/hooks`, got, stop: () => server.shutdown() };
}

/** README's check, written here: HMAC-SHA256 of `${t}.${body}` under the endpoint's secret. */
async function signedBy(secret: string, raw: string, header: string): Promise<{ ok: boolean; t: number }> {
  const parts = Object.fromEntries(header.split(",").map((p) => p.split("=", 2) as [string, string]));
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${parts.t}.${raw}`)),
  );
  const hex = Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
  return { ok: hex === parts.v1, t: Number(parts.t) };
}

const SUBSCRIPTION_EVENTS = [
  "subscription.created",
  "subscription.renewal_initiated",
  "subscription.renewed",
  "subscription.failed",
  "subscription.cancelled",
  "subscription.paused",
  "subscription.resumed",
  "subscription.updated",
];

Deno.test({
  name: "a monthly subscription in a 360 px browser: renewed twice, one renewal failed, paused and resumed",
  ignore: !hasChromium(),
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const clock = manualClock(new Date("2026-01-15T10:00:00.000Z"));
    const gw = await startTestGateway({ clock });
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, gw.app.fetch);
    const base = `http://127.0.0.1:${server.addr.port}`;
    const hooks = startHookReceiver();
    const browser = await launchBrowser();
    try {
      await Deno.mkdir(SHOTS, { recursive: true });
      const m = await gw.createMerchant("Ferme Awa");
      const key = m.keys.testSecret;
      const endpoint = await gw.request("POST", "/v1/webhooks/endpoints", {
        key,
        body: { url: hooks.url, events: SUBSCRIPTION_EVENTS },
      });
      assertEquals(endpoint.status, 201, endpoint.text);
      const secret: string = endpoint.json.data.secret;
      const { paylink, products } = await makeRecurringPaylink(gw, m.merchantId);

      // Every delivery queued so far is sent, one at a time, so the receiver sees them in order.
      let sent = 0;
      const deliver = async () => {
        const queued = gw.enqueued.filter((e) => e.message.type === "webhook.deliver");
        for (; sent < queued.length; sent++) {
          const result = await deliverWebhook(gw.deps, queued[sent].message.deliveryId!);
          assertEquals(result.outcome, "succeeded", JSON.stringify(result));
        }
      };
      const get = async (path: string) => {
        const res = await gw.request("GET", path, { key });
        assertEquals(res.status, 200, res.text);
        return res.json.data;
      };
      const cron = async () => {
        await handleSubscriptionCron(gw.deps);
        await deliver();
      };

      const context = await phoneContext(browser);
      const page = await context.newPage();
      const foreign: string[] = [];
      const problems: string[] = [];
      page.on("request", (r) => {
        if (!r.url().startsWith(base) && !r.url().startsWith("data:")) foreign.push(r.url());
      });
      page.on("console", (msg) => {
        if (msg.type() === "error") problems.push(msg.text());
      });
      page.on("pageerror", (e) => problems.push(e.message));
      const noScroll = async (where: string) => {
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert(width <= 360, `no horizontal scroll on ${where} (${width} px)`);
      };

      // The first checkout, on the paylink page: one basket, mobile money, the customer's details.
      await page.goto(`${base}/pay/link/${paylink.slug}`);
      await page.locator(`[data-prod="${products[0].id}"] [data-inc]`).click();
      await page.check('input[value="MOBILE_MONEY"]');
      for (const [field, value] of [
        ["customerName", "Awa Ouedraogo"],
        ["customerEmail", "awa@example.com"],
        ["customerPhone", "+22670123456"],
      ]) {
        const input = page.locator(`#f-${field}`);
        if (await input.isVisible()) await input.fill(value);
      }
      assertMatch(await page.textContent("#tot") ?? "", /5\s?000 XOF/);
      await Promise.all([page.waitForURL(/\/checkout\/pay_/), page.click("#pay")]);
      console.log("SIMPHONE", await page.locator("#simphone").count());
      await page.screenshot({ path: `${SHOTS}subscription-first-checkout-360.png`, fullPage: true });
    } finally {
      await browser.close();
      await hooks.stop();
      await server.shutdown();
      await gw.close();
    }
  },
});
