// Hostile input on the subscription routes and pages: another merchant's and another mode's ids, malformed
// ids, wrong types, NUL bytes, lone surrogates, huge strings, a publishable key, forged cancel tokens, odd
// forms, and 50 identical moves at once (one moves, 49 typed refusals, one event). None answers 500.
import { manualClock } from "../../domain/clock.ts";
import { startRenewal } from "../../domain/subscriptions/renewals.ts";
import { handleSubscriptionCron } from "../../jobs/subscriptions.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { eventsOf, makeRecurringPaylink, paidCheckout } from "../subscription_fixture.ts";

Deno.test("subscriptions: hostile input, other merchants, concurrency", async (t) => {
  const clock = manualClock(new Date("2026-04-01T08:00:00.000Z"));
  const gw = await startTestGateway({ clock });
  try {
    const m = await gw.createMerchant("Ferme Awa");
    const rival = await gw.createMerchant("Rival SARL");
    const key = m.keys.testSecret;
    const { paylink, products } = await makeRecurringPaylink(gw, m.merchantId, { interval: "WEEKLY" });
    await paidCheckout(gw, key, paylink.slug, products[0].id);
    const sub = (await gw.request("GET", "/v1/subscriptions", { key })).json.data.items[0];
    assert(sub, "the subscription exists");

    await t.step("another merchant, another mode, a publishable key: not found or forbidden", async () => {
      for (const otherKey of [rival.keys.testSecret, rival.keys.liveSecret, m.keys.liveSecret]) {
        for (
          const [method, path] of [
            ["GET", `/v1/subscriptions/${sub.id}`],
            ["GET", `/v1/subscriptions/${sub.id}/renewals`],
            ["POST", `/v1/subscriptions/${sub.id}/pause`],
            ["POST", `/v1/subscriptions/${sub.id}/cancel`],
          ]
        ) {
          const res = await gw.request(method, path, { key: otherKey });
          assertEquals(res.status, 404, `${method} ${path}`);
          assertEquals(res.json.error.code, "NOT_FOUND");
        }
        const patch = await gw.request("PATCH", `/v1/subscriptions/${sub.id}`, {
          key: otherKey,
          body: { amount: "1" },
        });
        assertEquals(patch.status, 404);
        assertEquals(
          (await gw.request("GET", "/v1/subscriptions", { key: otherKey })).json.data.meta.total,
          0,
        );
      }
      const pk = await gw.request("GET", "/v1/subscriptions", { key: m.keys.testPublishable });
      assertEquals(pk.status, 403);
      const pause = await gw.request("POST", `/v1/subscriptions/${sub.id}/pause`, {
        key: m.keys.testPublishable,
      });
      assertEquals(pause.status, 403);
      assertEquals((await gw.request("GET", "/v1/subscriptions")).status, 401);
      assertEquals(
        (await gw.request("GET", `/v1/subscriptions/${sub.id}`, { key })).json.data.status,
        "ACTIVE",
      );
    });

    await t.step("malformed ids and queries", async () => {
      for (
        const id of [
          "sub_x",
          "sub_%00",
          "%27%20OR%201%3D1",
          `sub_${"a".repeat(5000)}`,
          "pay_01kzzzzzzzzzzzzzzzzzzzzzzz",
        ]
      ) {
        for (const path of [`/v1/subscriptions/${id}`, `/v1/subscriptions/${id}/resume`]) {
          const res = await gw.request(path.endsWith("resume") ? "POST" : "GET", path, { key });
          assertEquals(res.status, 404, path.slice(0, 80));
        }
      }
      for (const q of ["status=NOPE", "page=0", "limit=101", "limit=abc"]) {
        assertEquals((await gw.request("GET", `/v1/subscriptions?${q}`, { key })).status, 400, q);
      }
      const odd = await gw.request(
        "GET",
        `/v1/subscriptions?paylinkId=${encodeURIComponent("' OR 1=1 --")}`,
        { key },
      );
      assertEquals(odd.status, 200);
      assertEquals(odd.json.data.meta.total, 0);
    });

    await t.step("bodies: wrong types, NUL, lone surrogates, huge strings, unknown fields", async () => {
      const path = `/v1/subscriptions/${sub.id}`;
      const bodies: Array<[string, string]> = [
        ["wrong type", JSON.stringify({ amount: 5000 })],
        ["NUL", JSON.stringify({ amount: "50\u000000" })],
        ["lone surrogate", '{"amount":"\\ud800"}'],
        ["huge", JSON.stringify({ amount: "9".repeat(100_000) })],
        ["too many decimals", JSON.stringify({ amount: "5000.5" })],
        ["unknown field", JSON.stringify({ amount: "5000", status: "CANCELLED" })],
        ["bad interval", JSON.stringify({ interval: "DAILY" })],
        ["interval count", JSON.stringify({ intervalCount: 0 })],
        ["array", "[]"],
        ["not JSON", "{amount:"],
        ["nested deep", "[".repeat(64) + "]".repeat(64)],
      ];
      for (const [name, rawBody] of bodies) {
        const res = await gw.request("PATCH", path, {
          key,
          rawBody,
          headers: { "content-type": "application/json" },
        });
        assert(res.status === 400, `${name}: ${res.status} ${res.text.slice(0, 200)}`);
      }
      const s = (await gw.request("GET", path, { key })).json.data;
      assertEquals([s.amount, s.interval, s.intervalCount], ["5000", "WEEKLY", 1], "nothing half-written");
      assertEquals((await eventsOf(gw, "subscription.updated", sub.id)).length, 0);
    });

    await t.step("50 identical pauses at once: one moves, one event", async () => {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => gw.request("POST", `/v1/subscriptions/${sub.id}/pause`, { key })),
      );
      const statuses = answers.map((a) => a.status);
      assertEquals(statuses.filter((s) => s === 200).length, 1, JSON.stringify(statuses));
      assertEquals(statuses.filter((s) => s === 400).length, 49);
      for (const a of answers.filter((x) => x.status === 400)) {
        assertEquals(a.json.error.code, "INVALID_TRANSACTION_STATUS");
      }
      assertEquals((await eventsOf(gw, "subscription.paused", sub.id)).length, 1);
      const resumes = await Promise.all(
        Array.from({ length: 50 }, () => gw.request("POST", `/v1/subscriptions/${sub.id}/resume`, { key })),
      );
      assertEquals(resumes.filter((a) => a.status === 200).length, 1);
      assertEquals((await eventsOf(gw, "subscription.resumed", sub.id)).length, 1);
    });

    await t.step("pages: forged tokens, odd ids, odd forms", async () => {
      // The 100 moves above used up the key's minute (100 requests per 60 s).
      clock.advance(120_000);
      for (
        const path of [
          `/subscriptions/${sub.id}/cancel?token=${"0".repeat(48)}`,
          `/subscriptions/${sub.id}/cancel?token=%00`,
          `/subscriptions/${sub.id}/cancel?token=${"a".repeat(10_000)}`,
          `/subscriptions/sub_x/cancel?token=abc`,
          `/subscriptions/renewals/srn_%00`,
          `/subscriptions/renewals/${"x".repeat(5000)}`,
        ]
      ) {
        const res = await gw.app.request(path);
        // A NUL anywhere is refused at the edge (VALIDATION_ERROR) before any lookup; the rest: not found.
        const expected = path.includes("%00") ? [400, 404] : [404];
        assert(expected.includes(res.status), `${path.slice(0, 80)}: ${res.status}`);
      }
      // Another subscription's valid token does not open this one.
      await paidCheckout(gw, key, paylink.slug, products[0].id, { customerEmail: "binta@example.com" });
      const mails = await gw.db.query<{ text_body: string; ref_id: string }>(
        "SELECT text_body, ref_id FROM mail_outbox WHERE kind = 'subscription.created'",
      );
      const theirs = mails.find((x) => x.ref_id !== sub.id)!;
      const token = /token=([0-9a-f]+)/.exec(theirs.text_body)![1];
      const cross = await gw.app.request(`/subscriptions/${sub.id}/cancel`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `token=${token}`,
      });
      assertEquals(cross.status, 404);
      assertEquals(
        (await gw.request("GET", `/v1/subscriptions/${sub.id}`, { key })).json.data.status,
        "ACTIVE",
      );
      // A renewal page's pay form with nonsense: a page again, never a pay-in, never a 500.
      clock.advance(7 * 24 * 3_600_000);
      await handleSubscriptionCron(gw.deps);
      const [renewal] = await gw.db.query<{ id: string }>(
        "SELECT id FROM subscription_renewals WHERE subscription_id = $1",
        [sub.id],
      );
      for (
        const body of [
          "paymentMethod=BITCOIN",
          "paymentMethod=",
          "paymentMethod=MOBILE_MONEY&customerPhone=%00%00",
          `paymentMethod=MOBILE_MONEY&customerPhone=${"9".repeat(5000)}`,
          "%%%",
        ]
      ) {
        const res = await gw.app.request(`/subscriptions/renewals/${renewal.id}/pay`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body,
        });
        assert(res.status === 400, `${body.slice(0, 40)}: ${res.status}`);
      }
      const [{ n }] = await gw.db.query<{ n: string }>(
        "SELECT count(*) AS n FROM payins WHERE metadata->>'renewalId' = $1",
        [renewal.id],
      );
      assertEquals(Number(n), 0);
    });

    await t.step(
      "races: a cancellation against a renewal's payment and against the renewal job",
      async () => {
        clock.advance(120_000);
        // Two subscriptions due for a renewal: pay one while the merchant cancels it; cancel the other
        // while the job claims its renewal. Either order is fine; a 500, a deadlock or a renewal left open
        // on a cancelled subscription is not.
        await paidCheckout(gw, key, paylink.slug, products[0].id, { customerEmail: "c1@example.com" });
        await paidCheckout(gw, key, paylink.slug, products[0].id, { customerEmail: "c2@example.com" });
        const items = (await gw.request("GET", "/v1/subscriptions?status=ACTIVE", { key })).json.data.items;
        const one = items.find((x: { customer: { email: string } }) => x.customer.email === "c1@example.com");
        const two = items.find((x: { customer: { email: string } }) => x.customer.email === "c2@example.com");
        clock.advance(7 * 24 * 3_600_000);
        assert(await startRenewal(gw.deps, one.id, 2));
        const [r1] = await gw.db.query<{ id: string }>(
          "SELECT id FROM subscription_renewals WHERE subscription_id = $1",
          [one.id],
        );
        const pay = await gw.app.request(`/subscriptions/renewals/${r1.id}/pay`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "paymentMethod=MOBILE_MONEY",
        });
        assertEquals(pay.status, 303);
        const payinId = /pay_[0-9a-z]+/.exec(pay.headers.get("location")!)![0];
        const [paid, cancelled, , cancelled2] = await Promise.all([
          gw.request("POST", `/v1/sandbox/payments/${payinId}/simulate`, { key }),
          gw.request("POST", `/v1/subscriptions/${one.id}/cancel`, { key }),
          handleSubscriptionCron(gw.deps),
          gw.request("POST", `/v1/subscriptions/${two.id}/cancel`, { key }),
        ]);
        assertEquals([paid.status, cancelled.status, cancelled2.status], [200, 200, 200]);
        const left = await gw.db.query<{ n: string }>(
          `SELECT count(*) AS n FROM subscription_renewals r JOIN subscriptions s ON s.id = r.subscription_id
          WHERE s.status = 'CANCELLED' AND r.status = 'PENDING'`,
        );
        assertEquals(Number(left[0].n), 0, "no renewal left open on a cancelled subscription");
        const [r1After] = await gw.db.query<{ status: string; paid_at: Date | null }>(
          "SELECT status, paid_at FROM subscription_renewals WHERE id = $1",
          [r1.id],
        );
        // Paid first: PAID; cancelled first: CANCELLED with the late payment recorded.
        assert(r1After.paid_at !== null, JSON.stringify(r1After));
        assert(["PAID", "CANCELLED"].includes(r1After.status));
      },
    );

    await t.step("the sandbox reset takes the subscriptions, renewals and e-mails with it", async () => {
      const res = await gw.request("POST", "/v1/sandbox/reset", { key });
      assertEquals(res.status, 200, res.text);
      assertEquals(res.json.data.deleted.subscriptions, 4);
      const [{ n }] = await gw.db.query<{ n: string }>("SELECT count(*) AS n FROM subscription_renewals");
      assertEquals(Number(n), 0);
      assert(res.json.data.deleted.subscriptionRenewals >= 3);
      assert(res.json.data.deleted.mailOutbox >= 7);
      assertEquals((await gw.request("GET", "/v1/subscriptions", { key })).json.data.meta.total, 0);
    });
  } finally {
    await gw.close();
  }
});
