// Card and mobile money pay-ins in XOF through the API, with the simulators calling back in-process.
import { signCallback } from "../../rails/fiat/signing.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";

async function xofWallet(gw: TestGateway, key: string, rail: "MOMO" | "CARD"): Promise<string> {
  const res = await gw.request("GET", "/v1/merchant/balances/XOF", { key });
  return res.json.data.wallets.find((w: { rail: string }) => w.rail === rail).balance;
}

async function eventPayload(gw: TestGateway, type: string, payinId: string) {
  const rows = await gw.db.query<{ data: Record<string, unknown> }>(
    "SELECT data FROM events WHERE type = $1 AND data->>'transactionId' = $2",
    [type, payinId],
  );
  return rows.map((r) => r.data);
}

Deno.test("mobile money and card pay-ins: rules, OTP and approval flows, provider callbacks", async (t) => {
  const gw = await startTestGateway();
  const m = await gw.createMerchant("Boutique Ouaga");
  // This file creates more pay-ins than the 30 a minute a merchant gets by default.
  await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
    rateLimits: { "POST /v1/payments": 1000, default: 1000 },
  });
  const key = m.keys.liveSecret;
  const create = (body: Record<string, unknown>, apiKey = key, path = "/v1/payments") =>
    gw.request("POST", path, { key: apiKey, body });
  const get = async (id: string, apiKey = key) =>
    (await gw.request("GET", `/v1/payments/${id}`, { key: apiKey })).json.data;
  const momo = (phone: string, extra: Record<string, unknown> = {}) =>
    create({ amount: "5000", paymentMethod: "MOBILE_MONEY", customerPhone: phone, ...extra });
  // Every callback the simulators deliver, so tests can replay one.
  const delivered: Array<{ url: string; body: string; headers: Record<string, string> }> = [];
  const originalFetch = gw.app.fetch;
  gw.app.fetch = (request: Request, ...rest: unknown[]) => {
    if (request.url.includes("/v1/providers/")) {
      const clone = request.clone();
      void clone.text().then((body) =>
        delivered.push({
          url: new URL(request.url).pathname,
          body,
          headers: Object.fromEntries(request.headers),
        })
      );
    }
    return (originalFetch as (r: Request, ...x: unknown[]) => Response | Promise<Response>)(request, ...rest);
  };

  try {
    await t.step("OPERATOR_A_BF: nextStep otp with the specification's fields", async () => {
      const res = await momo("+22654123456", { externalRef: "mm-1" });
      assertEquals(res.status, 201);
      const d = res.json.data;
      assertEquals(Object.keys(d).sort(), [
        "amount",
        "currency",
        "expiresAt",
        "hostedPaymentUrl",
        "instruction",
        "nextStep",
        "operatorCode",
        "paymentMethod",
        "status",
        "transactionId",
      ]);
      assertEquals([d.paymentMethod, d.nextStep, d.operatorCode], ["MOBILE_MONEY", "otp", "OPERATOR_A_BF"]);
      assertEquals([d.amount, d.currency, d.status], ["5000", "XOF", "AWAITING_PAYMENT"]);
      assert(typeof d.instruction.fr === "string" && typeof d.instruction.en === "string");
      assertEquals(d.hostedPaymentUrl, `http://localhost:8000/checkout/${d.transactionId}`);
    });

    await t.step("OPERATOR_B_BF: nextStep approval; operatorCode overrides the prefix", async () => {
      const b = (await momo("+22670123456")).json.data;
      assertEquals([b.nextStep, b.operatorCode], ["approval", "OPERATOR_B_BF"]);
      const forced = (await momo("+22670123456", { operatorCode: "OPERATOR_A_BF" })).json.data;
      assertEquals([forced.nextStep, forced.operatorCode], ["otp", "OPERATOR_A_BF"]);
    });

    await t.step("phone numbers in every wrong shape get their code and create nothing", async () => {
      const before = (await gw.db.query<{ n: number }>("SELECT count(*)::int AS n FROM payins"))[0].n;
      const missing = await create({ amount: "5000", paymentMethod: "MOBILE_MONEY" });
      assertEquals([missing.status, missing.json.error.code], [400, "CUSTOMER_PHONE_REQUIRED"]);
      for (
        const phone of [
          "70123456",
          "+226 70 12 34 56",
          "+2267012345",
          "+226701234567",
          "+22670-12345",
          "abc",
          "0022670123456",
        ]
      ) {
        const res = await momo(phone);
        assertEquals([res.status, res.json.error.code], [400, "VALIDATION_ERROR"], phone);
      }
      for (const phone of ["+22658123456", "+22680123456", "+33612345678"]) {
        const res = await momo(phone);
        assertEquals([res.status, res.json.error.code], [400, "OPERATOR_NOT_SUPPORTED"], phone);
      }
      const bogusOperator = await momo("+22670123456", { operatorCode: "OPERATOR_C_BF" });
      assertEquals(bogusOperator.json.error.code, "VALIDATION_ERROR");
      assertEquals((await gw.db.query<{ n: number }>("SELECT count(*)::int AS n FROM payins"))[0].n, before);
    });

    await t.step(
      "XOF amounts: decimals are INVALID_AMOUNT; below 500 / 100 is AMOUNT_BELOW_MINIMUM",
      async () => {
        for (const amount of ["500.5", "1e3", "-500", "abc", "0500"]) {
          const res = await create({ amount, paymentMethod: "MOBILE_MONEY", customerPhone: "+22670123456" });
          assertEquals([res.status, res.json.error.code], [400, "INVALID_AMOUNT"], amount);
        }
        const low = await create({
          amount: "499",
          paymentMethod: "MOBILE_MONEY",
          customerPhone: "+22670123456",
        });
        assertEquals(low.json.error.code, "AMOUNT_BELOW_MINIMUM");
        assertMatch(low.json.error.message, /500 XOF/);
        const lowCard = await create({
          amount: "99",
          paymentMethod: "CARD",
          customerName: "A B",
          customerEmail: "a@b.co",
        });
        assertEquals(lowCard.json.error.code, "AMOUNT_BELOW_MINIMUM");
        assertMatch(lowCard.json.error.message, /100 XOF/);
      },
    );

    await t.step(
      "card: name and e-mail required, currency rejected, response carries hostedPaymentUrl",
      async () => {
        const noName = await create({ amount: "1000", paymentMethod: "CARD", customerEmail: "a@b.co" });
        assertEquals([noName.json.error.code, noName.json.error.details[0].field], [
          "VALIDATION_ERROR",
          "customerName",
        ]);
        const noEmail = await create({
          amount: "1000",
          paymentMethod: "CARD",
          customerName: "Awa Ouedraogo",
        });
        assertEquals(noEmail.json.error.details[0].field, "customerEmail");
        const withCurrency = await create({
          amount: "1000",
          paymentMethod: "CARD",
          customerName: "Awa Ouedraogo",
          customerEmail: "awa@example.bf",
          currency: "XOF",
        });
        assertEquals([withCurrency.json.error.code, withCurrency.json.error.details[0].field], [
          "VALIDATION_ERROR",
          "currency",
        ]);
        const card = await create({
          amount: "1000",
          paymentMethod: "CARD",
          customerName: "Awa Ouedraogo",
          customerEmail: "awa@example.bf",
        });
        assertEquals(card.status, 201);
        assertEquals(card.json.data.status, "AWAITING_PAYMENT");
        assertMatch(card.json.data.hostedPaymentUrl, /\/simulators\/card\//);
        const alias = await create(
          { amount: "1000", customerName: "Awa Ouedraogo", customerEmail: "awa@example.bf" },
          key,
          "/v1/card-payments",
        );
        assertEquals([alias.status, alias.json.data.paymentMethod], [201, "CARD"]);
      },
    );

    await t.step("rails off: CARD_PAYMENTS_DISABLED, MOBILE_MONEY_PAYMENTS_DISABLED", async () => {
      const other = await gw.createMerchant("USDT only");
      await gw.admin("PATCH", `/admin/api/merchants/${other.merchantId}`, { enabledRails: ["USDT_TRC20"] });
      const card = await create(
        { amount: "1000", paymentMethod: "CARD", customerName: "A B", customerEmail: "a@b.co" },
        other.keys.liveSecret,
      );
      assertEquals([card.status, card.json.error.code], [403, "CARD_PAYMENTS_DISABLED"]);
      const mm = await create({
        amount: "1000",
        paymentMethod: "MOBILE_MONEY",
        customerPhone: "+22670123456",
      }, other.keys.liveSecret);
      assertEquals([mm.status, mm.json.error.code], [403, "MOBILE_MONEY_PAYMENTS_DISABLED"]);
    });

    await t.step(
      "OTP: format, wrong code, not applicable, then the right code and the callback settles",
      async () => {
        await gw.simulators.flush(); // settle what earlier steps left pending, so the balance delta is this pay-in's
        const before = await xofWallet(gw, key, "MOMO");
        const p = (await momo("+22654123456", { metadata: { order: 7 } })).json.data;
        const otp = (code: string, base = "/v1/payments") =>
          gw.request("POST", `${base}/${p.transactionId}/submit-otp`, { key, body: { otp: code } });
        for (const code of ["abcd", "123", "123456789", "12 34"]) {
          const res = await otp(code);
          assertEquals([res.status, res.json.error.code], [400, "VALIDATION_ERROR"], code);
        }
        const wrong = await otp("000000");
        assertEquals([wrong.status, wrong.json.error.code], [400, "OTP_INVALID"]);
        const right = await otp("123456", "/v1/payins");
        assertEquals(right.status, 200);
        assertEquals(right.json.data, { transactionId: p.transactionId, status: "AWAITING_PAYMENT" });
        assertEquals(
          (await get(p.transactionId)).status,
          "AWAITING_PAYMENT",
          "final state only through the callback",
        );
        await gw.simulators.flush();
        const rec = await get(p.transactionId);
        assertEquals([rec.status, rec.amountReceived, rec.serviceFee, rec.netAmount], [
          "CONFIRMED",
          "5000",
          "100",
          "4900",
        ]);
        assertEquals(Number(await xofWallet(gw, key, "MOMO")) - Number(before), 4900);
        assertEquals(await xofWallet(gw, key, "CARD"), "0");
        const [confirmed] = await eventPayload(gw, "payin.confirmed", p.transactionId);
        for (
          const field of [
            "transactionId",
            "status",
            "currency",
            "chain",
            "externalRef",
            "amount",
            "amountRequested",
            "txHash",
            "confirmedAt",
            "pricingCurrency",
            "pricingAmount",
            "fxRate",
          ]
        ) assert(field in confirmed, field);
        assertEquals([confirmed.currency, confirmed.amountRequested, confirmed.fxRate], [
          "XOF",
          "5000",
          "1.00000000",
        ]);
        assertEquals(confirmed.metadata, { order: 7 });
        const after = await otp("123456");
        assertEquals(after.json.error.code, "OTP_NOT_APPLICABLE");
      },
    );

    await t.step(
      "codes are limited per pay-in: the 6th within a minute is RATE_LIMITED, whichever route sends it",
      async () => {
        const p = (await momo("+22654777777")).json.data;
        const codes: number[] = [];
        for (let i = 0; i < 2; i++) {
          const res = await gw.request("POST", `/v1/payments/${p.transactionId}/submit-otp`, {
            key,
            body: { otp: "999999" },
          });
          codes.push(res.status);
        }
        for (let i = 0; i < 3; i++) {
          const res = await gw.request("POST", `/checkout/${p.transactionId}/otp`, {
            body: { otp: "999999" },
            headers: { accept: "application/json" },
          });
          codes.push(res.status);
        }
        assertEquals(codes, [400, 400, 400, 400, 400]);
        const limited = await gw.request("POST", `/v1/payments/${p.transactionId}/submit-otp`, {
          key,
          body: { otp: "123456" },
        });
        assertEquals([limited.status, limited.json.error.code], [429, "RATE_LIMITED"]);
        assert(Number(limited.headers.get("Retry-After")) >= 1);
        const page = await gw.request("POST", `/checkout/${p.transactionId}/otp`, {
          body: { otp: "123456" },
        });
        assertEquals([page.status, page.json.error.code], [429, "RATE_LIMITED"]);
      },
    );

    await t.step(
      "OTP_NOT_APPLICABLE on approval-mode and card pay-ins; another merchant's id is NOT_FOUND",
      async () => {
        const approval = (await momo("+22670123456")).json.data;
        const res = await gw.request("POST", `/v1/payments/${approval.transactionId}/submit-otp`, {
          key,
          body: { otp: "123456" },
        });
        assertEquals(res.json.error.code, "OTP_NOT_APPLICABLE");
        const card = (await create({
          amount: "1000",
          paymentMethod: "CARD",
          customerName: "A B",
          customerEmail: "a@b.co",
        })).json.data;
        const onCard = await gw.request("POST", `/v1/payments/${card.transactionId}/submit-otp`, {
          key,
          body: { otp: "123456" },
        });
        assertEquals(onCard.json.error.code, "OTP_NOT_APPLICABLE");
        const stranger = await gw.createMerchant("Stranger");
        const notMine = await gw.request("POST", `/v1/payments/${approval.transactionId}/submit-otp`, {
          key: stranger.keys.liveSecret,
          body: { otp: "123456" },
        });
        assertEquals(notMine.status, 404);
      },
    );

    await t.step("approval flow: the operator's confirmation settles it", async () => {
      const p = (await momo("+22670123456")).json.data;
      await gw.simulators.flush();
      assertEquals((await get(p.transactionId)).status, "CONFIRMED");
    });

    await t.step("the same provider callback twice credits once; a replay is refused", async () => {
      await gw.simulators.flush();
      const before = await xofWallet(gw, key, "MOMO");
      const p = (await momo("+22670000003")).json.data; // the simulator sends this one's callback twice
      await gw.simulators.flush();
      await gw.simulators.flush();
      assertEquals((await get(p.transactionId)).status, "CONFIRMED");
      assertEquals(Number(await xofWallet(gw, key, "MOMO")) - Number(before), 4900);
      const callback = delivered.find((d) => d.body.includes(p.transactionId))!;
      const replay = await gw.request("POST", callback.url, {
        rawBody: callback.body,
        headers: callback.headers,
      });
      assertEquals([replay.status, replay.json.error.code], [409, "CONFLICT"]);
      assertEquals(Number(await xofWallet(gw, key, "MOMO")) - Number(before), 4900);
    });

    await t.step("forged, stale and unknown-pay-in callbacks change nothing", async () => {
      const p = (await momo("+22670000002")).json.data; // a number the simulator never answers for
      const body = JSON.stringify({
        notificationId: crypto.randomUUID(),
        providerRef: "sim_forged",
        reference: p.transactionId,
        status: "SUCCEEDED",
        amount: "5000",
        occurredAt: new Date().toISOString(),
      });
      const url = "/v1/providers/simulator/momo/callback";
      const unsigned = await gw.request("POST", url, {
        rawBody: body,
        headers: { "content-type": "application/json" },
      });
      assertEquals([unsigned.status, unsigned.json.error.code], [400, "INVALID_WEBHOOK_SIGNATURE"]);
      const forged = await gw.request("POST", url, {
        rawBody: body,
        headers: {
          "x-provider-signature": await signCallback("not-the-secret-0123456789abcdef0123", body, new Date()),
        },
      });
      assertEquals(forged.status, 400);
      const secret = gw.deps.config.fiat.callbackSecret!;
      const stale = await gw.request("POST", url, {
        rawBody: body,
        headers: {
          "x-provider-signature": await signCallback(secret, body, new Date(Date.now() - 3600_000)),
        },
      });
      assertEquals(stale.status, 400);
      const unknownBody = body.replace(p.transactionId, "pay_doesnotexist");
      const unknown = await gw.request("POST", url, {
        rawBody: unknownBody,
        headers: { "x-provider-signature": await signCallback(secret, unknownBody, new Date()) },
      });
      assertEquals([unknown.status, unknown.json.error.code], [404, "NOT_FOUND"]);
      assertEquals((await get(p.transactionId)).status, "AWAITING_PAYMENT");
    });

    await t.step(
      "a callback that fails to apply is not remembered: the provider's retry settles it",
      async () => {
        const p = (await momo("+22670000002")).json.data; // never answered by the simulator itself
        const rec = await get(p.transactionId);
        const providerRef =
          (await gw.db.query<{ provider_ref: string }>("SELECT provider_ref FROM payins WHERE id = $1", [
            p.transactionId,
          ]))[0].provider_ref;
        const body = JSON.stringify({
          notificationId: crypto.randomUUID(),
          providerRef,
          reference: rec.id,
          status: "SUCCEEDED",
          amount: "5000",
          occurredAt: new Date().toISOString(),
        });
        const headers = {
          "x-provider-signature": await signCallback(gw.deps.config.fiat.callbackSecret!, body, new Date()),
        };
        // The first application dies inside its transaction (a sequence is not rolled back, so only once).
        await gw.db.exec(`
        CREATE SEQUENCE fail_once_seq;
        CREATE FUNCTION fail_once() RETURNS trigger AS $$
        BEGIN
          IF nextval('fail_once_seq') = 1 THEN RAISE EXCEPTION 'simulated crash while applying'; END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql;
        CREATE TRIGGER fail_once BEFORE UPDATE ON payins FOR EACH ROW EXECUTE FUNCTION fail_once();`);
        try {
          const first = await gw.request("POST", "/v1/providers/simulator/momo/callback", {
            rawBody: body,
            headers,
          });
          assertEquals([first.status, first.json.error.code], [500, "INTERNAL_ERROR"]);
          assertEquals((await get(p.transactionId)).status, "AWAITING_PAYMENT");
          const retry = await gw.request("POST", "/v1/providers/simulator/momo/callback", {
            rawBody: body,
            headers,
          });
          assertEquals([retry.status, retry.json.data.status], [200, "CONFIRMED"]);
        } finally {
          await gw.db.exec(
            "DROP TRIGGER fail_once ON payins; DROP FUNCTION fail_once(); DROP SEQUENCE fail_once_seq;",
          );
        }
      },
    );

    await t.step("a provider failure is FAILED with payin.failed and its reason", async () => {
      const p = (await momo("+22670000001")).json.data;
      await gw.simulators.flush();
      const rec = await get(p.transactionId);
      assertEquals([rec.status, rec.failureReason], ["FAILED", "INSUFFICIENT_FUNDS"]);
      const [failed] = await eventPayload(gw, "payin.failed", p.transactionId);
      assertEquals(failed.reason, "INSUFFICIENT_FUNDS");
    });

    await t.step(
      "sandbox: simulate settles a sandbox mobile money pay-in into the sandbox wallet",
      async () => {
        const p = (await create(
          { amount: "2000", paymentMethod: "MOBILE_MONEY", customerPhone: "+22654999999" },
          m.keys.testSecret,
          "/v1/payments?sandbox=true",
        )).json.data;
        const sim = await gw.request("POST", `/v1/sandbox/payments/${p.transactionId}/simulate`, {
          key: m.keys.testSecret,
        });
        assertEquals(sim.status, 200);
        const rec = await get(p.transactionId, m.keys.testSecret);
        assertEquals([rec.status, rec.isSandbox, rec.netAmount], ["CONFIRMED", true, "1960"]);
        assertEquals(await xofWallet(gw, m.keys.testSecret, "MOMO"), "1960");
      },
    );
  } finally {
    await gw.close();
  }
});

Deno.test("production without a real provider refuses live fiat pay-ins, keeps the sandbox", async () => {
  const gw = await startTestGateway({ env: { APP_ENV: "production" } });
  try {
    const m = await gw.createMerchant("Prod");
    const live = await gw.request("POST", "/v1/payments", {
      key: m.keys.liveSecret,
      body: { amount: "5000", paymentMethod: "MOBILE_MONEY", customerPhone: "+22670123456" },
    });
    assertEquals([live.status, live.json.error.code], [500, "CONFIG_MISSING"]);
    const sandbox = await gw.request("POST", "/v1/payments?sandbox=true", {
      key: m.keys.testSecret,
      body: { amount: "5000", paymentMethod: "MOBILE_MONEY", customerPhone: "+22670123456" },
    });
    assertEquals(sandbox.status, 201);
  } finally {
    await gw.close();
  }
});
