// README's subscription walk-through through the generated client (tests/typed_client.ts), in the
// sandbox: a recurring paylink, the customer's first checkout paid with the simulator, the subscription
// listed, read, paused, resumed, changed and cancelled, and the customer's e-mails in the outbox. Between
// the change and the cancel a month passes, so the next period's renewal is started with the new amount.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { ok, withWalkthrough } from "../typed_client.ts";

Deno.test(
  "README through the generated client: a monthly subscription from a recurring paylink (sandbox)",
  withWalkthrough(async (w) => {
    const bio = ok(
      await w.sandbox.POST("/v1/paylinks", {
        params: { query: { sandbox: "true" } },
        body: {
          title: "Panier bio",
          type: "RECURRING",
          recurringInterval: "MONTHLY",
          currency: "XOF",
          collectEmail: "REQUIRED",
          products: [{ name: "Panier hebdomadaire", price: "5000" }],
        },
      }),
      201,
    ).data;
    assertMatch(bio.slug, /^panier-bio-/);

    // The customer's first checkout (the hosted page does the same), paid with the sandbox simulator.
    const checkout = ok(
      await w.anonymous.POST("/v1/pay/link/{slug}/checkout", {
        params: { path: { slug: bio.slug } },
        body: {
          items: [{ productId: bio.products[0].id, quantity: 1 }],
          paymentMethod: "MOBILE_MONEY",
          customerPhone: "+22670123456",
          customerEmail: "awa@example.com",
          customerName: "Awa",
        },
      }),
      201,
    ).data;
    assertEquals([checkout.amount, checkout.currency], ["5000", "XOF"]);
    ok(
      await w.sandbox.POST("/v1/sandbox/payments/{id}/simulate", {
        params: { path: { id: checkout.transactionId } },
      }),
      200,
    );

    const listed =
      ok(await w.sandbox.GET("/v1/subscriptions", { params: { query: { paylinkId: bio.id } } }), 200)
        .data;
    assertEquals(listed.items.length, 1);
    const path = { id: listed.items[0].id };
    assertMatch(path.id, /^sub_/);
    const read = async () => {
      const sub = ok(await w.sandbox.GET("/v1/subscriptions/{id}", { params: { path } }), 200).data;
      assert("customer" in sub, "a secret key reads the full subscription");
      return sub;
    };
    const first = await read();
    assertEquals([first.status, first.amount, first.interval, first.customer.email], [
      "ACTIVE",
      "5000",
      "MONTHLY",
      "awa@example.com",
    ]);
    const renewals =
      ok(await w.sandbox.GET("/v1/subscriptions/{id}/renewals", { params: { path } }), 200).data;
    assertEquals(renewals.items, []);

    // Pause (no renewal while paused), a second pause refused, resume, then a new amount and interval.
    assertEquals(
      ok(await w.sandbox.POST("/v1/subscriptions/{id}/pause", { params: { path } }), 200).data.status,
      "PAUSED",
    );
    const twice = await w.sandbox.POST("/v1/subscriptions/{id}/pause", { params: { path } });
    assertEquals([twice.response.status, twice.error?.error.code], [400, "INVALID_TRANSACTION_STATUS"]);
    assertEquals(
      ok(await w.sandbox.POST("/v1/subscriptions/{id}/resume", { params: { path } }), 200).data.status,
      "ACTIVE",
    );
    const changed = ok(
      await w.sandbox.PATCH("/v1/subscriptions/{id}", {
        params: { path },
        body: { amount: "6000", interval: "WEEKLY", intervalCount: 2 },
      }),
      200,
    ).data;
    assertEquals([changed.amount, changed.interval, changed.intervalCount], ["6000", "WEEKLY", 2]);

    // The paid month runs out: the cron starts the next period's renewal, at the new amount.
    const due = (await read()).nextRenewalAt;
    assert(due !== null, "an active subscription has a next renewal");
    await w.wait(new Date(due).getTime() - w.now().getTime());
    await w.until(
      "renewal started",
      async () =>
        ok(await w.sandbox.GET("/v1/subscriptions/{id}/renewals", { params: { path } }), 200).data.items
          .length > 0,
    );
    const [renewal] =
      ok(await w.sandbox.GET("/v1/subscriptions/{id}/renewals", { params: { path } }), 200).data
        .items;
    assertEquals([renewal.status, renewal.amount, renewal.periodIndex], ["PENDING", "6000", 2]);
    assertMatch(renewal.renewalUrl, /\/subscriptions\/renewals\/srn_/);

    const cancelled =
      ok(await w.sandbox.POST("/v1/subscriptions/{id}/cancel", { params: { path } }), 200).data;
    assertEquals([cancelled.status, cancelled.cancelledBy], ["CANCELLED", "MERCHANT"]);
    const after = await w.sandbox.POST("/v1/subscriptions/{id}/resume", { params: { path } });
    assertEquals([after.response.status, after.error?.error.code], [400, "INVALID_TRANSACTION_STATUS"]);

    // Development: the e-mails the customer would have received (nothing leaves the machine).
    const mail = ok(
      await w.operator.GET("/admin/api/mail-outbox", { params: { query: { to: "awa@example.com" } } }),
      200,
    ).data;
    const kinds = mail.items.map((m) => m.kind);
    assert(kinds.length >= 2, `the customer's e-mails: ${kinds.join(", ")}`);
    assert(mail.items.some((m) => m.text.includes(renewal.renewalUrl)), "the renewal e-mail links its page");
    assert(mail.items.some((m) => /\/subscriptions\/sub_\w+\/cancel\?token=/.test(m.text)), "a cancel link");
  }),
);
