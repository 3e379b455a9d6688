// Recurring paylinks and subscriptions (issue 12, item 9): a subscription created at the first paid
// checkout, renewed once paid (e-mail, hosted renewal page, the pay-in's checkout), failed when unpaid
// after the grace, paused and resumed (no renewal while paused), changed, cancelled by the merchant and
// by the customer's signed link, and two processes running the renewal job at once: one renewal a period.
import { readDatabaseConfig } from "../../config.ts";
import { openPostgres } from "../../db/postgres.ts";
import { manualClock } from "../../domain/clock.ts";
import type { Deps } from "../../domain/deps.ts";
import { expireDuePayins } from "../../domain/payins/chain_events.ts";
import { startSubscriptionOfOrder } from "../../domain/subscriptions/create.ts";
import { handleSubscriptionCron, handleSubscriptionRenew } from "../../jobs/subscriptions.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { contractFor } from "../contract.ts";
import { webhookBody } from "../../domain/webhooks/events.ts";
import {
  eventsOf,
  linkIn,
  makeRecurringPaylink,
  outbox,
  paidCheckout,
  renewalsOf,
} from "../subscription_fixture.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

Deno.test("subscriptions: created, renewed, failed, paused and resumed, changed, cancelled", async (t) => {
  // 31 January: the monthly periods clamp to 28 February, then come back to the 31st in March.
  const t0 = new Date("2026-01-31T09:00:00.000Z");
  const clock = manualClock(t0);
  const gw = await startTestGateway({ clock });
  try {
    const m = await gw.createMerchant("Ferme Awa");
    const key = m.keys.testSecret;
    const { paylink, products } = await makeRecurringPaylink(gw, m.merchantId);
    const product = products[0];
    const get = (path: string) => gw.request("GET", path, { key });
    const post = (path: string, body?: unknown) => gw.request("POST", path, { key, body });
    let subId = "";
    let cancelPath = "";

    await t.step("a recurring checkout needs the customer's e-mail", async () => {
      const res = await gw.request("POST", `/v1/pay/link/${paylink.slug}/checkout`, {
        body: { items: [{ productId: product.id, quantity: 1 }], paymentMethod: "USDT_TRC20" },
      });
      assertEquals(res.status, 400);
      assertEquals(res.json.error.code, "VALIDATION_ERROR");
      assertEquals(res.json.error.details[0].field, "customerEmail");
      assertEquals((await get("/v1/subscriptions")).json.data.items.length, 0);
    });

    await t.step(
      "the first paid checkout creates the subscription, its event and the welcome e-mail",
      async () => {
        const { orderId, payinId } = await paidCheckout(gw, key, paylink.slug, product.id, {
          promoCode: "BIENVENUE",
        });
        const list = await get("/v1/subscriptions");
        assertEquals(list.status, 200, list.text);
        assertEquals(list.json.data.meta.total, 1);
        const s = list.json.data.items[0];
        subId = s.id;
        assertMatch(s.id, /^sub_/);
        assertEquals(s.status, "ACTIVE");
        assertEquals(s.paylinkId, paylink.id);
        assertEquals(s.firstOrderId, orderId);
        assertEquals(s.customer, { email: "awa@example.com", name: "Awa Ouedraogo", phone: "+22670123456" });
        // The promo code paid 10 % off the first payment; each renewal asks the full price.
        assertEquals(s.amount, "5000");
        assertEquals(s.currency, "XOF");
        assertEquals(s.interval, "MONTHLY");
        assertEquals(s.currentPeriodStart, t0.toISOString());
        assertEquals(s.currentPeriodEnd, "2026-02-28T09:00:00.000Z");
        assertEquals(s.nextRenewalAt, "2026-02-28T09:00:00.000Z");
        assertEquals(s.paymentMethod, "MOBILE_MONEY");
        const [created] = await eventsOf(gw, "subscription.created", subId);
        assertEquals(created.paylinkId, paylink.id);
        assertEquals(created.customer.email, "awa@example.com");
        assertEquals(created.currentPeriodStart, t0.toISOString());
        assertEquals(created.currentPeriodEnd, "2026-02-28T09:00:00.000Z");
        assertEquals(created.transactionId, payinId);
        const [welcome] = await outbox(gw, subId);
        assertEquals(welcome.to, "awa@example.com");
        assertEquals(welcome.kind, "subscription.created");
        cancelPath = linkIn(welcome.text, `/subscriptions/${subId}/cancel`);
        // The paid move seen again (a repeated settlement) makes no second subscription.
        const [order] = await gw.db.query<Record<string, unknown>>(
          "SELECT * FROM paylink_orders WHERE id = $1",
          [
            orderId,
          ],
        );
        // deno-lint-ignore no-explicit-any
        assertEquals(await startSubscriptionOfOrder(gw.deps, order as any, "CONFIRMED"), undefined);
        assertEquals((await get("/v1/subscriptions")).json.data.meta.total, 1);
        assertEquals((await get(`/v1/subscriptions/${subId}`)).json.data.id, subId);
      },
    );

    let renewalPath = "";
    await t.step("two processes run the renewal job at once: one renewal for the period", async () => {
      clock.set(new Date("2026-02-28T08:59:00.000Z"));
      await handleSubscriptionCron(gw.deps);
      assertEquals((await renewalsOf(gw, subId)).length, 0, "not due a minute early");
      clock.set(new Date("2026-02-28T09:00:00.000Z"));
      // A second process: its own deps and, on PostgreSQL, its own connection pool to the same schema
      // (PGlite is one embedded connection: there the two share it).
      const url = readDatabaseConfig().databaseUrl;
      const [{ schema }] = await gw.db.query<{ schema: string }>("SELECT current_schema() AS schema");
      const otherDb = url ? await openPostgres(url, 5, schema) : gw.db;
      const other: Deps = { ...gw.deps, db: otherDb, keyCache: undefined };
      const message = { type: "subscription.renew" as const, subscriptionId: subId, periodIndex: 2 };
      await Promise.all([
        handleSubscriptionCron(gw.deps),
        handleSubscriptionCron(other),
        handleSubscriptionRenew(message, gw.deps),
        handleSubscriptionRenew(message, other),
        handleSubscriptionCron(other),
      ]);
      // A KV message delivered again later changes nothing either.
      await handleSubscriptionRenew(message, other);
      if (otherDb !== gw.db) await otherDb.close();
      const renewals = await renewalsOf(gw, subId);
      assertEquals(renewals.length, 1);
      assertEquals(renewals[0].period_index, 2);
      assertEquals(renewals[0].status, "PENDING");
      const initiated = await eventsOf(gw, "subscription.renewal_initiated", subId);
      assertEquals(initiated.length, 1);
      assertEquals(initiated[0].renewal.periodStart, "2026-02-28T09:00:00.000Z");
      assertEquals(initiated[0].renewal.periodEnd, "2026-03-31T09:00:00.000Z");
      assertEquals(initiated[0].renewal.amount, "5000");
      const mails = await outbox(gw, renewals[0].id);
      assertEquals(mails.length, 1);
      assertEquals(mails[0].kind, "subscription.renewal");
      renewalPath = linkIn(mails[0].text, "/subscriptions/renewals/");
      assertEquals(renewalPath, `/subscriptions/renewals/${renewals[0].id}`);
      assert(
        mails[0].text.includes(`/subscriptions/${subId}/cancel?token=`),
        "the e-mail carries the cancel link",
      );
      const s = (await get(`/v1/subscriptions/${subId}`)).json.data;
      assertEquals(s.nextRenewalAt, "2026-03-31T09:00:00.000Z");
      assertEquals(s.currentPeriodEnd, "2026-02-28T09:00:00.000Z", "not paid yet: the paid period stays");
    });

    await t.step(
      "the renewal page: whom, how much, which rails; French by default, English on request",
      async () => {
        const page = await gw.request("GET", renewalPath);
        assertEquals(page.status, 200);
        assertMatch(page.text, /data-merchant>Ferme Awa</);
        assertMatch(page.text, /data-amount>5000 <small>FCFA par mois/);
        for (const rail of ["USDT_TRC20", "CARD", "MOBILE_MONEY"]) {
          assert(page.text.includes(`data-rail="${rail}"`));
        }
        assert(
          page.text.includes("Renouvellement de l&#39;abonnement") ||
            page.text.includes("Renouvellement de l'abonnement"),
        );
        assert(
          !/<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!localhost)/.test(page.text),
          "no outside asset",
        );
        const en = await gw.request("GET", `${renewalPath}?lang=en`);
        assertMatch(en.text, /Subscription renewal/);
        assertMatch(en.text, /per month/);
        assertEquals(
          (await gw.request("GET", "/subscriptions/renewals/srn_01kzzzzzzzzzzzzzzzzzzzzzzz")).status,
          404,
        );
      },
    );

    await t.step(
      "paying it: one pay-in however often asked, then renewed and the paid period advances",
      async () => {
        const form = (rail: string) =>
          gw.app.request(`${renewalPath}/pay`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: `paymentMethod=${rail}&customerPhone=%2B22670123456`,
          });
        const answers = await Promise.all(Array.from({ length: 10 }, () => form("MOBILE_MONEY")));
        const targets = new Set(answers.map((a) => a.headers.get("location")));
        for (const a of answers) assertEquals(a.status, 303);
        assertEquals(targets.size, 1, "every ask goes to the same pay-in");
        const payinId = /\/checkout\/(pay_[0-9a-z]+)/.exec([...targets][0]!)![1];
        const [{ n }] = await gw.db.query<{ n: string }>(
          "SELECT count(*) AS n FROM payins WHERE metadata->>'renewalId' = $1",
          [renewalPath.split("/").pop()],
        );
        assertEquals(Number(n), 1);
        const checkout = await gw.request("GET", `/checkout/${payinId}`);
        assertMatch(checkout.text, /data-merchant>Ferme Awa</);
        assertMatch(checkout.text, /data-ref>Panier bio: 1 × Panier hebdomadaire \(2026-02-28\)</);
        const paid = await post(`/v1/sandbox/payments/${payinId}/simulate`);
        assertEquals(paid.status, 200, paid.text);
        const renewed = await eventsOf(gw, "subscription.renewed", subId);
        assertEquals(renewed.length, 1);
        assertEquals(renewed[0].renewal.status, "PAID");
        assertEquals(renewed[0].renewal.transactionId, payinId);
        const s = (await get(`/v1/subscriptions/${subId}`)).json.data;
        assertEquals(s.status, "ACTIVE");
        assertEquals(s.currentPeriodStart, "2026-02-28T09:00:00.000Z");
        assertEquals(s.currentPeriodEnd, "2026-03-31T09:00:00.000Z");
        assertMatch((await gw.request("GET", renewalPath)).text, /Renouvellement payé/);
        // Paid: no new pay-in can be started on it.
        assertEquals((await form("USDT_TRC20")).status, 400);
        const renewals = (await get(`/v1/subscriptions/${subId}/renewals`)).json.data.items;
        assertEquals(renewals.map((r: { status: string }) => r.status), ["PAID"]);
      },
    );

    await t.step(
      "unpaid: open while a pay-in runs, then failed after the grace (72 h by default)",
      async () => {
        clock.set(new Date("2026-03-31T09:00:00.000Z"));
        await handleSubscriptionCron(gw.deps);
        const third = (await renewalsOf(gw, subId)).find((r) => r.period_index === 3)!;
        assertEquals(third.status, "PENDING");
        clock.advance(72 * HOUR - 60_000);
        const started = await gw.app.request(`/subscriptions/renewals/${third.id}/pay`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "paymentMethod=USDT_TRC20",
        });
        assertEquals(started.status, 303);
        clock.advance(2 * 60_000);
        await handleSubscriptionCron(gw.deps);
        assertEquals((await renewalsOf(gw, subId))[1].status, "PENDING", "a running pay-in keeps it open");
        assertEquals((await eventsOf(gw, "subscription.failed", subId)).length, 0);
        clock.advance(31 * 60_000);
        await expireDuePayins(gw.deps);
        await handleSubscriptionCron(gw.deps);
        await handleSubscriptionCron(gw.deps);
        const failed = await eventsOf(gw, "subscription.failed", subId);
        assertEquals(failed.length, 1);
        assertEquals(failed[0].reason, "UNPAID");
        assertEquals(failed[0].renewal.periodIndex, 3);
        assertEquals(failed[0].status, "PAST_DUE");
        const s = (await get(`/v1/subscriptions/${subId}`)).json.data;
        assertEquals(s.status, "PAST_DUE");
        assertEquals(s.currentPeriodEnd, "2026-03-31T09:00:00.000Z", "the unpaid period is not paid for");
        assertEquals(s.nextRenewalAt, "2026-04-30T09:00:00.000Z");
        assertMatch(
          (await gw.request("GET", `/subscriptions/renewals/${third.id}`)).text,
          /Renouvellement échoué/,
        );
      },
    );

    await t.step("paused: no renewal starts; resumed past the period: a new period starts now", async () => {
      const paused = await post(`/v1/subscriptions/${subId}/pause`);
      assertEquals(paused.status, 200, paused.text);
      assertEquals(paused.json.data.status, "PAUSED");
      assertEquals(paused.json.data.nextRenewalAt, null);
      const again = await post(`/v1/subscriptions/${subId}/pause`);
      assertEquals(again.status, 400);
      assertEquals(again.json.error.code, "INVALID_TRANSACTION_STATUS");
      assertMatch(again.json.error.message, /PAUSED/);
      clock.set(new Date("2026-05-10T12:00:00.000Z"));
      await handleSubscriptionCron(gw.deps);
      assertEquals((await renewalsOf(gw, subId)).length, 2, "nothing while paused");
      assertEquals((await eventsOf(gw, "subscription.paused", subId)).length, 1);
      const resumed = await post(`/v1/subscriptions/${subId}/resume`);
      assertEquals(resumed.status, 200, resumed.text);
      assertEquals(resumed.json.data.status, "ACTIVE");
      assertEquals(resumed.json.data.nextRenewalAt, "2026-05-10T12:00:00.000Z");
      assertEquals((await eventsOf(gw, "subscription.resumed", subId)).length, 1);
      assertEquals(
        (await post(`/v1/subscriptions/${subId}/resume`)).json.error.code,
        "INVALID_TRANSACTION_STATUS",
      );
      await handleSubscriptionCron(gw.deps);
      const fourth = (await renewalsOf(gw, subId))[2];
      assertEquals(fourth.period_index, 4);
      assertEquals(fourth.period_start.toISOString(), "2026-05-10T12:00:00.000Z");
      assertEquals(
        (await get(`/v1/subscriptions/${subId}`)).json.data.nextRenewalAt,
        "2026-06-10T12:00:00.000Z",
      );
    });

    await t.step("the merchant changes the amount and the interval from the next renewal", async () => {
      let res = await gw.request("PATCH", `/v1/subscriptions/${subId}`, {
        key,
        body: { amount: "6000", interval: "WEEKLY", intervalCount: 2 },
      });
      assertEquals(res.status, 200, res.text);
      assertEquals(res.json.data.amount, "6000");
      assertEquals(res.json.data.interval, "WEEKLY");
      assertEquals(res.json.data.intervalCount, 2);
      assertEquals(res.json.data.nextRenewalAt, "2026-06-10T12:00:00.000Z", "the running period stays");
      const [updated] = await eventsOf(gw, "subscription.updated", subId);
      assertEquals(updated.previous, { amount: "5000", interval: "MONTHLY", intervalCount: 1 });
      assertEquals(updated.amount, "6000");
      for (
        const body of [{ amount: "12.5" }, { amount: "0" }, { amount: "-5" }, {}, { amount: 6000 }, { x: 1 }]
      ) {
        res = await gw.request("PATCH", `/v1/subscriptions/${subId}`, { key, body });
        assertEquals(res.status, 400, JSON.stringify(body));
        assertEquals(res.json.error.code, "VALIDATION_ERROR");
      }
      // The renewal already asked keeps its amount; the next one asks the new one, two weeks on.
      clock.set(new Date("2026-06-10T12:00:00.000Z"));
      await handleSubscriptionCron(gw.deps);
      const [fifth] = await eventsOf(gw, "subscription.renewal_initiated", subId).then((e) =>
        e.filter((x) => x.renewal.periodIndex === 5)
      );
      assertEquals(fifth.renewal.amount, "6000");
      assertEquals(fifth.renewal.periodEnd, "2026-06-24T12:00:00.000Z");
    });

    await t.step("the customer cancels with the signed link; a forged token is not found", async () => {
      const forged = cancelPath.replace(/token=[0-9a-f]+/, `token=${"0".repeat(48)}`);
      assertEquals((await gw.request("GET", forged)).status, 404);
      assertEquals((await gw.request("GET", cancelPath.replace(/\?.*$/, ""))).status, 404);
      const confirm = await gw.request("GET", cancelPath);
      assertEquals(confirm.status, 200);
      assertMatch(confirm.text, /Résilier votre abonnement/);
      assertMatch(confirm.text, /data-confirm-cancel/);
      // The language switch keeps the token.
      assertMatch(confirm.text, /href="\?token=[0-9a-f]{48}&amp;lang=en"/);
      assertMatch((await gw.request("GET", `${cancelPath}&lang=en`)).text, /Cancel your subscription\?/);
      const token = /token=([0-9a-f]+)/.exec(cancelPath)![1];
      const badPost = await gw.app.request(`/subscriptions/${subId}/cancel`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `token=${"f".repeat(48)}`,
      });
      assertEquals(badPost.status, 404);
      // Renewal 4 (10 May) went unpaid past its grace meanwhile: past due, and not cancelled by a forgery.
      assertEquals((await get(`/v1/subscriptions/${subId}`)).json.data.status, "PAST_DUE");
      const cancel = () =>
        gw.app.request(`/subscriptions/${subId}/cancel`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: `token=${token}`,
        });
      const answers = await Promise.all([cancel(), cancel(), cancel()]);
      for (const a of answers) assertEquals(a.status, 303);
      const s = (await get(`/v1/subscriptions/${subId}`)).json.data;
      assertEquals(s.status, "CANCELLED");
      assertEquals(s.cancelledBy, "CUSTOMER");
      assertEquals(s.nextRenewalAt, null);
      const cancelled = await eventsOf(gw, "subscription.cancelled", subId);
      assertEquals(cancelled.length, 1);
      assertEquals(cancelled[0].cancelledBy, "CUSTOMER");
      assertMatch((await gw.request("GET", cancelPath)).text, /plus aucun paiement/);
      // The open renewal is closed and can no longer be paid; nothing renews any more.
      const renewals = await renewalsOf(gw, subId);
      assertEquals(renewals.at(-1)!.status, "CANCELLED");
      assertMatch(
        (await gw.request("GET", `/subscriptions/renewals/${renewals.at(-1)!.id}`)).text,
        /Abonnement résilié/,
      );
      for (const action of ["pause", "resume", "cancel"]) {
        const res = await post(`/v1/subscriptions/${subId}/${action}`);
        assertEquals(res.status, 400);
        assertEquals(res.json.error.code, "INVALID_TRANSACTION_STATUS");
      }
      clock.advance(400 * DAY);
      await handleSubscriptionCron(gw.deps);
      assertEquals((await renewalsOf(gw, subId)).length, renewals.length);
    });

    await t.step("the merchant cancels another subscription", async () => {
      await paidCheckout(gw, key, paylink.slug, product.id, { customerEmail: "binta@example.com" });
      const list = (await get(`/v1/subscriptions?status=ACTIVE&paylinkId=${paylink.id}`)).json.data;
      assertEquals(list.meta.total, 1);
      const other = list.items[0];
      assertEquals(other.customer.email, "binta@example.com");
      const res = await post(`/v1/subscriptions/${other.id}/cancel`);
      assertEquals(res.status, 200, res.text);
      assertEquals(res.json.data.status, "CANCELLED");
      assertEquals(res.json.data.cancelledBy, "MERCHANT");
      assertEquals((await eventsOf(gw, "subscription.cancelled", other.id))[0].cancelledBy, "MERCHANT");
      assertEquals((await get("/v1/subscriptions?status=CANCELLED")).json.data.meta.total, 2);
    });

    await t.step("every subscription event sent matches its documented webhook payload", async () => {
      const contract = contractFor(await (await gw.app.request("/v1/openapi.json")).text());
      const rows = await gw.db.query<{ type: string; data: unknown; created_at: Date }>(
        "SELECT type, data, created_at FROM events WHERE type LIKE 'subscription.%'",
      );
      const types = new Set(rows.map((r) => r.type));
      assertEquals(types.size, 8, [...types].join(", "));
      for (const r of rows) {
        const data = typeof r.data === "string" ? JSON.parse(r.data) : r.data;
        const body = JSON.parse(webhookBody(r.type, data, r.created_at, { livemode: false, test: false }));
        assertEquals(contract.checkEvent(body), null);
      }
    });
  } finally {
    await gw.close();
  }
});
