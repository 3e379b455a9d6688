// The subscriber's pages in headless Chromium on a 360-pixel phone: the renewal page (no horizontal
// scroll, nothing from another host), paying it by mobile money through the pay-in's checkout, then the
// signed cancel link's confirm page and its done page. The gateway runs in-process behind Deno.serve with
// a manual clock, so a month passes in a line. Screenshots: tests/e2e/screenshots/ (copied to docs/).
// The second test is issue 12's story: a monthly subscription made at the first paid checkout on the
// paylink page, two renewals paid on the simulated phone, a third left unpaid past the grace (FAILED,
// the subscription PAST_DUE), paused (no renewal while paused) and resumed (the next one starts), with
// the merchant's signed webhooks delivered in order and each checked against the OpenAPI document.
import { manualClock } from "../../domain/clock.ts";
import { deliverWebhook } from "../../domain/webhooks/delivery.ts";
import { handleSubscriptionCron, handleSubscriptionRenew } from "../../jobs/subscriptions.ts";
import type { Page } from "playwright-core";
import { contractFor } from "../contract.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { linkIn, makeRecurringPaylink, outbox, paidCheckout, renewalsOf } from "../subscription_fixture.ts";
import { hasChromium, launchBrowser, phoneContext, watchPage } from "./browser.ts";

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
      const { foreign, problems } = watchPage(page, [base]);

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

/** The customer approves the mobile money request on the simulated phone; the checkout turns paid. */
async function payOnPhone(page: Page, flush: () => Promise<void>) {
  const [phone] = await Promise.all([
    page.context().waitForEvent("page"),
    page.locator("#simphone").click(),
  ]);
  await phone.waitForLoadState();
  await phone.locator('form[action*="/approve"] button').click();
  await phone.waitForLoadState();
  await phone.close();
  await flush();
  await page.locator('[data-phase="paid"]').waitFor({ state: "visible", timeout: 15_000 });
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
      const { foreign, problems } = watchPage(page, [base]);
      page.on("response", (r) => {
        if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
      });
      const noScroll = async (where: string) => {
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert(width <= 360, `no horizontal scroll on ${where} (${width} px)`);
      };

      // The first checkout, on the paylink page: one basket, mobile money, the customer's details.
      await page.goto(`${base}/pay/link/${paylink.slug}`);
      await page.locator(`[data-prod="${products[0].id}"] [data-inc]`).click();
      await page.check('input[value="MOBILE_MONEY"]');
      for (
        const [field, value] of [
          ["customerName", "Awa Ouedraogo"],
          ["customerEmail", "awa@example.com"],
          ["customerPhone", "+22670123456"],
        ]
      ) {
        const input = page.locator(`#f-${field}`);
        if (await input.isVisible()) await input.fill(value);
      }
      assertMatch(await page.textContent("#tot") ?? "", /5\s?000 XOF/);
      await Promise.all([page.waitForURL(/\/checkout\/pay_/), page.click("#pay")]);
      assertMatch(await page.locator("[data-merchant]").first().innerText(), /Ferme Awa/);
      await noScroll("first checkout");
      await payOnPhone(page, gw.simulators.flush);
      await deliver();

      const [sub] = (await get("/v1/subscriptions")).items;
      assertEquals(sub.status, "ACTIVE");
      assertEquals([sub.amount, sub.currency, sub.interval, sub.intervalCount], [
        "5000",
        "XOF",
        "MONTHLY",
        1,
      ]);
      assertEquals(sub.customer.email, "awa@example.com");
      assertEquals([sub.currentPeriodStart, sub.currentPeriodEnd], [
        "2026-01-15T10:00:00.000Z",
        "2026-02-15T10:00:00.000Z",
      ]);
      assertEquals(sub.nextRenewalAt, "2026-02-15T10:00:00.000Z");

      /** The renewal of `periodIndex` started by the cron: its page, reached by the link in the e-mail. */
      const renewalPage = async (periodIndex: number) => {
        const renewal = (await renewalsOf(gw, sub.id)).find((r) => r.period_index === periodIndex);
        assert(renewal, `renewal ${periodIndex} started`);
        const [mail] = await outbox(gw, renewal.id);
        assertEquals(mail.to, "awa@example.com");
        const path = linkIn(mail.text, "/subscriptions/renewals/");
        await page.goto(`${base}${path}`);
        assertMatch(await page.locator("[data-merchant]").first().innerText(), /Ferme Awa/);
        return { renewal, path };
      };
      /** The customer pays a renewal from its page by mobile money and sees it paid. */
      const payRenewal = async (periodIndex: number, shot?: string) => {
        clock.advance(20 * 60_000); // the customer reads the e-mail a little later
        const { renewal, path } = await renewalPage(periodIndex);
        assertMatch(await page.locator("h1").innerText(), /Renouvellement de l'abonnement/);
        assertMatch(await page.locator("[data-amount]").innerText(), /5000\s+FCFA par mois/);
        assertEquals(await page.locator("#phone").inputValue(), "+22670123456");
        await noScroll(`renewal ${periodIndex}`);
        if (shot) await page.screenshot({ path: `${SHOTS}${shot}`, fullPage: true });
        await Promise.all([
          page.waitForURL(/\/checkout\/pay_/),
          page.locator('button[data-rail="MOBILE_MONEY"]').click(),
        ]);
        assertMatch(await page.locator("[data-merchant]").first().innerText(), /Ferme Awa/);
        assertMatch(await page.locator("#amt").innerText(), /5\s?000/);
        await payOnPhone(page, gw.simulators.flush);
        await deliver();
        await page.goto(`${base}${path}`);
        assertMatch(await page.locator("h1").innerText(), /Renouvellement payé/);
        return renewal;
      };

      // Month 1: the renewal starts on the period's day, the customer pays it.
      clock.set(new Date("2026-02-15T10:00:00.000Z"));
      await cron();
      await payRenewal(2, "subscription-renewal-month1-360.png");
      await page.screenshot({ path: `${SHOTS}subscription-renewed-360.png`, fullPage: true });
      let now = await get(`/v1/subscriptions/${sub.id}`);
      assertEquals([now.status, now.currentPeriodStart, now.currentPeriodEnd, now.nextRenewalAt], [
        "ACTIVE",
        "2026-02-15T10:00:00.000Z",
        "2026-03-15T10:00:00.000Z",
        "2026-03-15T10:00:00.000Z",
      ]);
      // Running the cron again the same day starts nothing more.
      await cron();
      assertEquals((await renewalsOf(gw, sub.id)).length, 1);

      // Month 2: paid too; the paid period advanced twice.
      clock.set(new Date("2026-03-15T10:00:00.000Z"));
      await cron();
      await payRenewal(3);
      now = await get(`/v1/subscriptions/${sub.id}`);
      assertEquals([now.status, now.currentPeriodStart, now.currentPeriodEnd], [
        "ACTIVE",
        "2026-03-15T10:00:00.000Z",
        "2026-04-15T10:00:00.000Z",
      ]);

      // Month 3: the renewal starts, the customer opens it but never pays; within the grace nothing fails.
      clock.set(new Date("2026-04-15T10:00:00.000Z"));
      await cron();
      const { path: unpaidPath } = await renewalPage(4);
      assertMatch(await page.locator("h1").innerText(), /Renouvellement de l'abonnement/);
      clock.set(new Date("2026-04-18T09:59:00.000Z"));
      await cron();
      assertEquals((await get(`/v1/subscriptions/${sub.id}`)).status, "ACTIVE");
      // Past the grace (72 hours): FAILED, the subscription past due, the page says so.
      clock.set(new Date("2026-04-18T10:01:00.000Z"));
      await cron();
      const renewals = await get(`/v1/subscriptions/${sub.id}/renewals`);
      const unpaid = renewals.items.find((r: { periodIndex: number }) => r.periodIndex === 4);
      assertEquals([unpaid.status, unpaid.failureReason], ["FAILED", "UNPAID"]);
      now = await get(`/v1/subscriptions/${sub.id}`);
      assertEquals([now.status, now.currentPeriodEnd], ["PAST_DUE", "2026-04-15T10:00:00.000Z"]);
      await page.goto(`${base}${unpaidPath}`);
      assertMatch(await page.locator("h1").innerText(), /Renouvellement échoué/);
      assertEquals(await page.locator("button[data-rail]").count(), 0, "a failed renewal cannot be paid");
      await noScroll("failed renewal");
      await page.screenshot({ path: `${SHOTS}subscription-failed-360.png`, fullPage: true });

      // The merchant pauses: no renewal starts while paused, even a period later.
      clock.set(new Date("2026-04-20T10:00:00.000Z"));
      const paused = await gw.request("POST", `/v1/subscriptions/${sub.id}/pause`, { key });
      assertEquals(paused.status, 200, paused.text);
      assertEquals([paused.json.data.status, paused.json.data.nextRenewalAt], ["PAUSED", null]);
      await deliver();
      clock.set(new Date("2026-05-16T10:00:00.000Z"));
      await cron();
      assertEquals((await renewalsOf(gw, sub.id)).length, 3, "no renewal while paused");
      assertEquals(gw.enqueued.filter((e) => e.message.type === "subscription.renew").length, 0);

      // The merchant resumes: a new period starts now and its renewal with it.
      const resumed = await gw.request("POST", `/v1/subscriptions/${sub.id}/resume`, { key });
      assertEquals(resumed.status, 200, resumed.text);
      assertEquals(resumed.json.data.status, "ACTIVE");
      await deliver();
      clock.advance(1_000); // the queue hands the message over a moment later
      for (const e of gw.enqueued.filter((e) => e.message.type === "subscription.renew")) {
        await handleSubscriptionRenew(e.message as Parameters<typeof handleSubscriptionRenew>[0], gw.deps);
      }
      await cron(); // the cron finding the same period changes nothing
      const next = (await renewalsOf(gw, sub.id)).filter((r) => r.period_index === 5);
      assertEquals(next.length, 1, "the next renewal started once");
      assertEquals(next[0].status, "PENDING");
      assertEquals(next[0].period_start.toISOString(), "2026-05-16T10:00:00.000Z");
      await renewalPage(5);
      assertMatch(await page.locator("[data-amount]").innerText(), /5000\s+FCFA par mois/);
      assertMatch(await page.locator("main").innerText(), /du 16 mai 2026 au 16 juin 2026/);
      await page.screenshot({ path: `${SHOTS}subscription-resumed-360.png`, fullPage: true });

      // The merchant's events, in order, each delivered signed and matching its documented payload.
      const sequence = [
        "subscription.created",
        "subscription.renewal_initiated",
        "subscription.renewed",
        "subscription.renewal_initiated",
        "subscription.renewed",
        "subscription.renewal_initiated",
        "subscription.failed",
        "subscription.paused",
        "subscription.resumed",
        "subscription.renewal_initiated",
      ];
      const stored = await gw.db.query<{ type: string }>(
        "SELECT type FROM events WHERE merchant_id = $1 AND type LIKE 'subscription.%' ORDER BY created_at, id",
        [m.merchantId],
      );
      assertEquals(stored.map((e) => e.type), sequence);
      const bodies = hooks.got.map((h) => JSON.parse(h.raw));
      assertEquals(bodies.map((b) => b.event), sequence);
      const contract = contractFor(await (await gw.app.request("/v1/openapi.json")).text());
      for (const [i, h] of hooks.got.entries()) {
        assert((await signedBy(secret, h.raw, h.signature)).ok, `delivery ${i} signed with the secret`);
        assertEquals(contract.checkEvent(bodies[i]), null);
        assertEquals([bodies[i].data.subscriptionId, bodies[i].livemode], [sub.id, false]);
      }
      const renewed = bodies.filter((b) => b.event === "subscription.renewed");
      assertEquals(renewed.map((b) => b.data.renewal.periodIndex), [2, 3]);
      assertEquals(renewed.map((b) => b.data.currentPeriodEnd), [
        "2026-03-15T10:00:00.000Z",
        "2026-04-15T10:00:00.000Z",
      ]);
      const failed = bodies.find((b) => b.event === "subscription.failed");
      assertEquals([failed.data.status, failed.data.reason, failed.data.renewal.periodIndex], [
        "PAST_DUE",
        "UNPAID",
        4,
      ]);
      assertEquals(bodies.at(-1).data.renewal.periodIndex, 5);
      assertEquals(foreign, [], "nothing loaded from another host");
      assertEquals(problems, [], "no console errors (CSP included)");
      await context.close();
    } finally {
      await browser.close();
      await hooks.stop();
      await server.shutdown();
      await gw.close();
    }
  },
});
