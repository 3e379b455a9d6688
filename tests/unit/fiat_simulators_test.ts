// The fiat simulators: callback signing, the card acquirer through its hosted page, mobile money in OTP and
// approval modes, the test numbers, and timers. A fake clock and flush() replace sleeping; a fake deliver
// records callbacks instead of POSTing them.
import { createSimulators, type Simulators } from "../../rails/fiat/mod.ts";
import { type InitiateInput, type OperatorCode, ProviderError } from "../../rails/fiat/provider.ts";
import { SIGNATURE_HEADER, signCallback, verifyCallback } from "../../rails/fiat/signing.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "../assert.ts";

const SECRET = "test-callback-secret-0123456789abcdef";
const BASE = "https://pay.example";
const START = Date.parse("2026-03-10T12:00:00Z");
const DELAY = 1500;

type Delivered = { url: string; body: string; headers: Record<string, string> };

function harness(opts: { delayMs?: number; status?: () => number } = {}) {
  let clock = START;
  const delivered: Delivered[] = [];
  const sims: Simulators = createSimulators({
    publicBase: `${BASE}/`,
    secret: SECRET,
    delayMs: opts.delayMs ?? DELAY,
    deliver: (url, body, headers) => {
      delivered.push({ url, body, headers });
      return Promise.resolve(opts.status?.() ?? 200);
    },
    now: () => clock,
  });
  return {
    sims,
    delivered,
    now: () => clock,
    /** Moves the clock and runs what became due. */
    advance: async (ms: number) => {
      clock += ms;
      await sims.flush();
    },
    [Symbol.dispose]: () => sims.stop(),
  };
}

function input(overrides: Partial<InitiateInput> = {}): InitiateInput {
  return {
    reference: "pay_01TEST",
    amount: "5000",
    currency: "XOF",
    customer: { name: "Awa Ouédraogo", email: "awa@example.com" },
    callbackUrl: "http://127.0.0.1/internal/providers/callback",
    returnUrl: `${BASE}/pay/pay_01TEST/return`,
    isSandbox: true,
    ...overrides,
  };
}

const isBadCallback = (err: unknown) => err instanceof ProviderError && err.kind === "bad_callback";

Deno.test("signing: good, wrong secret, tampered body, stale, missing and malformed headers", async () => {
  const body = JSON.stringify({ hello: "world" });
  const at = new Date(START);
  const sig = await signCallback(SECRET, body, at);
  assertMatch(sig, /^t=\d+,v1=[0-9a-f]{64}$/);
  assertEquals(sig.split(",")[0], `t=${START / 1000}`);
  const h = (v: string) => new Headers({ [SIGNATURE_HEADER]: v });

  await verifyCallback(SECRET, h(sig), body, at);
  await verifyCallback(SECRET, { "x-provider-signature": sig }, body, new Date(START + 299_000));
  await verifyCallback(SECRET, h(sig), body, new Date(START - 299_000)); // small clock skew both ways
  // rotation: one of several v1 signatures matches
  const other = (await signCallback("another-secret-another-secret-xx", body, at)).split(",")[1];
  await verifyCallback(SECRET, h(`${sig},${other}`), body, at);

  await assertRejects(
    () => verifyCallback("wrong-secret-wrong-secret-wrong!!", h(sig), body, at),
    isBadCallback,
  );
  await assertRejects(
    () => verifyCallback(SECRET, h(sig), body.replace("world", "w0rld"), at),
    isBadCallback,
  );
  await assertRejects(() => verifyCallback(SECRET, h(sig), body, new Date(START + 301_000)), isBadCallback);
  await assertRejects(() => verifyCallback(SECRET, h(sig), body, new Date(START - 301_000)), isBadCallback);
  await assertRejects(() => verifyCallback(SECRET, new Headers(), body, at), isBadCallback);
  await assertRejects(() => verifyCallback(SECRET, {}, body, at), isBadCallback);
  const [t, v1] = sig.split(",");
  const tNum = Number(t.slice(2));
  for (
    const bad of [
      "",
      "garbage",
      t, // no v1
      v1, // no t
      `t=abc,${v1}`,
      `${t},v1=zz`,
      `${t},v1=${v1.slice(3, 40)}`,
      `${t},${t},${v1}`,
      `${t};${v1}`,
      `t=${tNum + 1},${v1}`, // a moved timestamp breaks the signature
    ]
  ) {
    await assertRejects(() => verifyCallback(SECRET, h(bad), body, at), isBadCallback);
  }
});

async function postForm(sims: Simulators, path: string, fields: Record<string, string>, lang = "en") {
  return await sims.app.request(`${path}?lang=${lang}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}

async function startCard(sims: Simulators, overrides: Partial<InitiateInput> = {}) {
  const { providerRef, redirectUrl } = await sims.card.initiate(input(overrides));
  assertMatch(providerRef, /^sim_card_[0-9a-f]{32}$/);
  assertEquals(redirectUrl, `${BASE}/simulators/card/${providerRef}`);
  return { ref: providerRef, path: new URL(redirectUrl).pathname };
}

async function checkOneCallback(
  h: ReturnType<typeof harness>,
  ref: string,
  expected: { status: string; amount: string; reason?: string },
) {
  assertEquals(h.delivered.length, 1, "exactly one callback");
  const d = h.delivered[0];
  assertEquals(d.url, "http://127.0.0.1/internal/providers/callback");
  assertEquals(d.headers["content-type"], "application/json");
  const parser = ref.startsWith("sim_card_") ? h.sims.card.parseCallback : h.sims.momo.parseCallback;
  const outcome = await parser({ headers: new Headers(d.headers), rawBody: d.body });
  assertEquals(outcome.providerRef, ref);
  assertEquals(outcome.reference, "pay_01TEST");
  assertEquals(outcome.status, expected.status);
  assertEquals(outcome.amount, expected.amount);
  assertEquals(outcome.reason, expected.reason);
  assertEquals(outcome.occurredAt.getTime(), h.now());
  assertMatch(outcome.notificationId, /^ntf_sim_/);
  return outcome;
}

Deno.test("card: the hosted page, each test card, field errors and the challenge step", async (t) => {
  await t.step("GET the form in French by default, English by Accept-Language and ?lang", async () => {
    using h = harness();
    const { path } = await startCard(h.sims);
    const fr = await h.sims.app.request(path);
    assertEquals(fr.status, 200);
    assertMatch(fr.headers.get("content-type") ?? "", /text\/html/);
    const frHtml = await fr.text();
    assertMatch(frHtml, /<html lang="fr">/);
    assertMatch(frHtml, /Numéro de carte/);
    assertMatch(frHtml, /5\u202f000 XOF/);
    assertMatch(frHtml, /name="viewport"/);
    assert(!/<script|https?:\/\/(?!pay\.example)/.test(frHtml), "no script and no outside asset");
    const en = await (await h.sims.app.request(path, { headers: { "accept-language": "en-GB,en;q=0.9" } }))
      .text();
    assertMatch(en, /Card number/);
    assertMatch(en, /5,000 XOF/);
    assertMatch(await (await h.sims.app.request(`${path}?lang=en`)).text(), /<html lang="en">/);
    assertEquals((await h.sims.app.request("/simulators/card/sim_card_unknown")).status, 404);
  });

  await t.step("field errors are clear and keep the typed values", async () => {
    using h = harness();
    const { path } = await startCard(h.sims);
    const cases: Array<[Record<string, string>, RegExp[]]> = [
      [{ number: "", expiry: "", cvc: "" }, [
        /Enter the card number/,
        /Enter the expiry date/,
        /3 or 4 digits/,
      ]],
      [{ number: "4242 4242 4242 4241", expiry: "12/30", cvc: "123" }, [/not valid: check the digits/]],
      [{ number: "4242", expiry: "12/30", cvc: "123" }, [/12 to 19 digits/]],
      [{ number: "4242424242424242", expiry: "13/30", cvc: "123" }, [/between 01 and 12/]],
      [{ number: "4242424242424242", expiry: "2/2030", cvc: "123" }, [/as MM\/YY/]],
      [{ number: "4242424242424242", expiry: "02/26", cvc: "123" }, [/has expired/]], // clock is March 2026
      [{ number: "4242424242424242", expiry: "12/30", cvc: "12" }, [/3 or 4 digits/]],
      [{ number: "4242424242424242", expiry: "12/30", cvc: "12345" }, [/3 or 4 digits/]],
    ];
    for (const [fields, messages] of cases) {
      const res = await postForm(h.sims, path, fields);
      assertEquals(res.status, 422, JSON.stringify(fields));
      const html = await res.text();
      for (const m of messages) assertMatch(html, m);
      assertMatch(html, /aria-invalid="true"/);
      if (fields.number) assert(html.includes(`value="${fields.number}"`), "number kept");
    }
    const frRes = await postForm(h.sims, path, { number: "1234", expiry: "12/30", cvc: "123" }, "fr");
    assertMatch(await frRes.text(), /de 12 à 19 chiffres/);
    // the current month is still valid; nothing was decided by the errors
    const ok = await postForm(h.sims, path, {
      number: "4242-4242-4242-4242",
      expiry: "03 / 26",
      cvc: "1234",
    });
    assertEquals(ok.status, 303);
    assertEquals(h.delivered.length, 0);
  });

  await t.step(
    "4242: processing page, redirect to returnUrl, one signed SUCCEEDED callback after the delay",
    async () => {
      using h = harness();
      const { ref, path } = await startCard(h.sims);
      const res = await postForm(h.sims, path, {
        number: "4242 4242 4242 4242",
        expiry: "12/30",
        cvc: "123",
      });
      assertEquals(res.status, 303);
      assertEquals(res.headers.get("location"), `${path}?lang=en`);
      const page = await (await h.sims.app.request(`${path}?lang=en`)).text();
      assertMatch(page, /Processing your payment/);
      assertMatch(
        page,
        /http-equiv="refresh" content="2;url=https:\/\/pay\.example\/pay\/pay_01TEST\/return"/,
      );
      assertEquals(await h.sims.card.queryStatus(ref), { status: "PENDING" });
      await h.advance(DELAY - 1);
      assertEquals(h.delivered.length, 0, "not before the delay");
      await h.advance(1);
      await checkOneCallback(h, ref, { status: "SUCCEEDED", amount: "5000" });
      assertEquals(await h.sims.card.queryStatus(ref), { status: "SUCCEEDED", amount: "5000" });
      // posting again changes nothing and sends nothing
      const again = await postForm(h.sims, path, {
        number: "4000 0000 0000 0002",
        expiry: "12/30",
        cvc: "123",
      });
      assertEquals(again.status, 303);
      await h.advance(60_000);
      assertEquals(h.delivered.length, 1);
    },
  );

  await t.step("0002: declined with CARD_DECLINED", async () => {
    using h = harness();
    const { ref, path } = await startCard(h.sims);
    await postForm(h.sims, path, { number: "4000000000000002", expiry: "12/30", cvc: "123" });
    await h.advance(DELAY);
    await checkOneCallback(h, ref, { status: "FAILED", amount: "0", reason: "CARD_DECLINED" });
    assertEquals(await h.sims.card.queryStatus(ref), { status: "FAILED", reason: "CARD_DECLINED" });
  });

  await t.step("3220: challenge step, 123456 succeeds", async () => {
    using h = harness();
    const { ref, path } = await startCard(h.sims);
    const res = await postForm(h.sims, path, { number: "4000 0000 0000 3220", expiry: "12/30", cvc: "123" });
    assertEquals(res.status, 303);
    const challenge = await (await h.sims.app.request(`${path}?lang=en`)).text();
    assertMatch(challenge, /Verification code/);
    assertMatch(challenge, /ending in <strong>3220<\/strong>/);
    assertMatch(challenge, new RegExp(`action="${path}/challenge\\?lang=en"`));
    const empty = await postForm(h.sims, `${path}/challenge`, { code: "" });
    assertEquals(empty.status, 422);
    assertMatch(await empty.text(), /Enter the verification code/);
    const ok = await postForm(h.sims, `${path}/challenge`, { code: "123456" });
    assertEquals(ok.status, 303);
    await h.advance(DELAY);
    await checkOneCallback(h, ref, { status: "SUCCEEDED", amount: "5000" });
  });

  await t.step("3220: a wrong challenge code declines with CHALLENGE_FAILED", async () => {
    using h = harness();
    const { ref, path } = await startCard(h.sims);
    await postForm(h.sims, path, { number: "4000000000003220", expiry: "12/30", cvc: "123" });
    await postForm(h.sims, `${path}/challenge`, { code: "000000" });
    assertMatch(await (await h.sims.app.request(path)).text(), /Paiement en cours de traitement/);
    await h.advance(DELAY);
    await checkOneCallback(h, ref, { status: "FAILED", amount: "0", reason: "CHALLENGE_FAILED" });
  });

  await t.step("0119: never answered; queryStatus stays PENDING", async () => {
    using h = harness();
    const { ref, path } = await startCard(h.sims);
    const res = await postForm(h.sims, path, { number: "4000 0000 0000 0119", expiry: "12/30", cvc: "123" });
    assertEquals(res.status, 303);
    await h.advance(24 * 3600_000);
    assertEquals(h.delivered.length, 0);
    assertEquals(await h.sims.card.queryStatus(ref), { status: "PENDING" });
  });

  await t.step("initiate checks its input; unknown refs are an unavailable provider answer", async () => {
    using h = harness();
    const kindOf = (kind: string) => (err: unknown) => err instanceof ProviderError && err.kind === kind;
    await assertRejects(() => h.sims.card.initiate(input({ callbackUrl: "" })), kindOf("missing_url"));
    await assertRejects(() => h.sims.card.initiate(input({ returnUrl: "" })), kindOf("missing_url"));
    await assertRejects(() => h.sims.card.initiate(input({ amount: "12.5" })), kindOf("initiate_failed"));
    await assertRejects(() => h.sims.card.queryStatus("sim_card_nope"), kindOf("unavailable"));
  });
});

Deno.test("callbacks: parseCallback rejects forged, stale and malformed callbacks", async () => {
  using h = harness({ delayMs: 0 });
  const { path } = await startCard(h.sims);
  await postForm(h.sims, path, { number: "4242424242424242", expiry: "12/30", cvc: "123" });
  await h.sims.flush();
  const d = h.delivered[0];
  const parse = h.sims.card.parseCallback;
  const sign = async (body: string) =>
    new Headers({ [SIGNATURE_HEADER]: await signCallback(SECRET, body, new Date(h.now())) });
  await parse({ headers: new Headers(d.headers), rawBody: d.body });
  await assertRejects(() => parse({ headers: new Headers(d.headers), rawBody: d.body + " " }), isBadCallback);
  await assertRejects(() => parse({ headers: new Headers(), rawBody: d.body }), isBadCallback);
  const body = JSON.parse(d.body);
  for (
    const bad of [
      "not json",
      JSON.stringify({ ...body, status: "MAYBE" }),
      JSON.stringify({ ...body, amount: "12.5" }),
      JSON.stringify({ ...body, occurredAt: "yesterday" }),
      JSON.stringify({ ...body, extra: true }),
      JSON.stringify({ ...body, notificationId: undefined }),
    ]
  ) {
    await assertRejects(async () => parse({ headers: await sign(bad), rawBody: bad }), isBadCallback);
  }
  await h.advance(301_000); // the same callback, too late
  await assertRejects(() => parse({ headers: new Headers(d.headers), rawBody: d.body }), isBadCallback);
});

Deno.test("callbacks: a failed delivery is retried with the same notification, re-signed", async () => {
  let status = 500;
  using h = harness({ delayMs: 0, status: () => status });
  const { ref, path } = await startCard(h.sims);
  await postForm(h.sims, path, { number: "4242424242424242", expiry: "12/30", cvc: "123" });
  await h.sims.flush();
  assertEquals(h.delivered.length, 1);
  status = 200;
  await h.advance(4_999);
  assertEquals(h.delivered.length, 1);
  await h.advance(1);
  assertEquals(h.delivered.length, 2);
  assertEquals(h.delivered[1].body, h.delivered[0].body);
  assertEquals(
    (await h.sims.card.parseCallback({
      headers: new Headers(h.delivered[1].headers),
      rawBody: h.delivered[1].body,
    }))
      .providerRef,
    ref,
  );
  await h.advance(3600_000);
  assertEquals(h.delivered.length, 2, "no retry after a 2xx");
});

const PHONE_A = "+22654123456";
const PHONE_B = "+22670123456";

async function startMomo(sims: Simulators, operatorCode: OperatorCode, phone: string) {
  const res = await sims.momo.initiate({ ...input(), operatorCode, phone });
  assertMatch(res.providerRef, /^sim_momo_[0-9a-f]{32}$/);
  return res;
}

Deno.test("momo OTP mode (OPERATOR_A_BF)", async (t) => {
  await t.step("initiate answers nextStep otp with the instruction", async () => {
    using h = harness();
    const res = await startMomo(h.sims, "OPERATOR_A_BF", PHONE_A);
    assertEquals(res.nextStep, "otp");
    assertMatch(res.instruction.en, /Enter the code received by SMS.*5,000 XOF/);
    assertMatch(res.instruction.fr, /^Composez/);
    const phone = await (await h.sims.app.request(`/simulators/momo/${res.providerRef}?lang=en`)).text();
    assertMatch(phone, /Your payment code is 123456/);
  });

  await t.step("wrong code, then right code: SUCCEEDED callback after the delay", async () => {
    using h = harness();
    const { providerRef: ref } = await startMomo(h.sims, "OPERATOR_A_BF", PHONE_A);
    assertEquals(await h.sims.momo.submitOtp(ref, "000000"), { ok: false, code: "OTP_INVALID" });
    assertEquals(await h.sims.momo.submitOtp(ref, "123456"), { ok: true });
    assertEquals(await h.sims.momo.queryStatus(ref), { status: "PENDING" });
    assertEquals(await h.sims.momo.submitOtp(ref, "123456"), { ok: false, code: "OTP_NOT_APPLICABLE" });
    await h.advance(DELAY - 1);
    assertEquals(h.delivered.length, 0);
    await h.advance(1);
    await checkOneCallback(h, ref, { status: "SUCCEEDED", amount: "5000" });
    assertEquals(await h.sims.momo.queryStatus(ref), { status: "SUCCEEDED", amount: "5000" });
    assertEquals(await h.sims.momo.submitOtp(ref, "123456"), { ok: false, code: "OTP_NOT_APPLICABLE" });
  });

  await t.step("three wrong codes fail the payment with OTP_ATTEMPTS_EXCEEDED", async () => {
    using h = harness();
    const { providerRef: ref } = await startMomo(h.sims, "OPERATOR_A_BF", PHONE_A);
    for (let i = 0; i < 3; i++) {
      assertEquals(await h.sims.momo.submitOtp(ref, "111111"), { ok: false, code: "OTP_INVALID" });
    }
    assertEquals(await h.sims.momo.submitOtp(ref, "123456"), { ok: false, code: "OTP_NOT_APPLICABLE" });
    await h.advance(DELAY);
    await checkOneCallback(h, ref, { status: "FAILED", amount: "0", reason: "OTP_ATTEMPTS_EXCEEDED" });
    assertEquals(await h.sims.momo.queryStatus(ref), { status: "FAILED", reason: "OTP_ATTEMPTS_EXCEEDED" });
  });

  await t.step("the code expires after 5 minutes", async () => {
    using h = harness();
    const { providerRef: ref } = await startMomo(h.sims, "OPERATOR_A_BF", PHONE_A);
    await h.advance(5 * 60_000);
    assertEquals(
      await h.sims.momo.submitOtp(ref, "000000"),
      { ok: false, code: "OTP_INVALID" },
      "still valid at 5:00",
    );
    await h.advance(1);
    assertEquals(await h.sims.momo.submitOtp(ref, "123456"), { ok: false, code: "OTP_EXPIRED" });
    await h.advance(3600_000);
    assertEquals(h.delivered.length, 0);
    assertEquals(await h.sims.momo.queryStatus(ref), { status: "PENDING" });
  });

  await t.step("OTP on an approval-mode payment or an unknown ref is not applicable", async () => {
    using h = harness();
    const { providerRef: ref } = await startMomo(h.sims, "OPERATOR_B_BF", PHONE_B);
    assertEquals(await h.sims.momo.submitOtp(ref, "123456"), { ok: false, code: "OTP_NOT_APPLICABLE" });
    assertEquals(await h.sims.momo.submitOtp("sim_momo_nope", "123456"), {
      ok: false,
      code: "OTP_NOT_APPLICABLE",
    });
  });
});

Deno.test("momo approval mode (OPERATOR_B_BF)", async (t) => {
  await t.step("approved automatically after the delay", async () => {
    using h = harness();
    const res = await startMomo(h.sims, "OPERATOR_B_BF", PHONE_B);
    assertEquals(res.nextStep, "approval");
    assertMatch(res.instruction.en, /^Approve the request on your phone.*5,000 XOF/);
    assertMatch(res.instruction.fr, /^Validez la demande sur votre téléphone/);
    await h.advance(DELAY - 1);
    assertEquals(h.delivered.length, 0);
    assertEquals(await h.sims.momo.queryStatus(res.providerRef), { status: "PENDING" });
    await h.advance(1);
    await checkOneCallback(h, res.providerRef, { status: "SUCCEEDED", amount: "5000" });
  });

  await t.step("approved by the customer before the delay: one callback", async () => {
    using h = harness();
    const { providerRef: ref } = await startMomo(h.sims, "OPERATOR_B_BF", PHONE_B);
    const res = await h.sims.app.request(`/simulators/momo/${ref}/approve`, { method: "POST" });
    assertEquals(res.status, 200);
    assertEquals((await res.json()).ok, true);
    await h.sims.flush();
    await checkOneCallback(h, ref, { status: "SUCCEEDED", amount: "5000" });
    await h.advance(DELAY * 10);
    assertEquals(h.delivered.length, 1, "the automatic approval was cancelled");
    const late = await h.sims.app.request(`/simulators/momo/${ref}/decline`, { method: "POST" });
    assertEquals(late.status, 409);
  });

  await t.step("declined by the customer from the phone page: CUSTOMER_REJECTED", async () => {
    using h = harness();
    const { providerRef: ref } = await startMomo(h.sims, "OPERATOR_B_BF", PHONE_B);
    const phone = await (await h.sims.app.request(`/simulators/momo/${ref}?lang=en`)).text();
    assertMatch(phone, /Approve the request on your phone/);
    assertMatch(phone, new RegExp(`action="/simulators/momo/${ref}/decline\\?lang=en"`));
    const res = await postForm(h.sims, `/simulators/momo/${ref}/decline`, {});
    assertEquals(res.status, 303);
    await h.sims.flush();
    await checkOneCallback(h, ref, { status: "FAILED", amount: "0", reason: "CUSTOMER_REJECTED" });
    await h.advance(DELAY * 10);
    assertEquals(h.delivered.length, 1);
    assertMatch(await (await h.sims.app.request(`/simulators/momo/${ref}?lang=en`)).text(), /finished/);
  });

  await t.step("approve on an OTP-mode payment is 409, on an unknown one 404", async () => {
    using h = harness();
    const { providerRef: ref } = await startMomo(h.sims, "OPERATOR_A_BF", PHONE_A);
    assertEquals(
      (await h.sims.app.request(`/simulators/momo/${ref}/approve`, { method: "POST" })).status,
      409,
    );
    assertEquals(
      (await h.sims.app.request(`/simulators/momo/sim_momo_x/approve`, { method: "POST" })).status,
      404,
    );
  });

  await t.step("initiate refuses a phone that is not +226 and 8 digits", async () => {
    using h = harness();
    const failed = (err: unknown) => err instanceof ProviderError && err.kind === "initiate_failed";
    await assertRejects(
      () => h.sims.momo.initiate({ ...input(), operatorCode: "OPERATOR_B_BF", phone: "+2257012345" }),
      failed,
    );
  });
});

Deno.test("momo test numbers: insufficient funds, no answer, duplicate callback", async (t) => {
  for (const [operator, national] of [["OPERATOR_B_BF", "70"], ["OPERATOR_A_BF", "54"]] as const) {
    const authorize = async (h: ReturnType<typeof harness>, ref: string) => {
      if (operator === "OPERATOR_A_BF") {
        assertEquals(await h.sims.momo.submitOtp(ref, "123456"), { ok: true });
      }
      await h.advance(DELAY);
    };

    await t.step(`${national}000001 (${operator}): FAILED with INSUFFICIENT_FUNDS`, async () => {
      using h = harness();
      const { providerRef: ref } = await startMomo(h.sims, operator, `+226${national}000001`);
      await authorize(h, ref);
      await h.sims.flush();
      await checkOneCallback(h, ref, { status: "FAILED", amount: "0", reason: "INSUFFICIENT_FUNDS" });
    });

    await t.step(`${national}000002 (${operator}): no callback ever, PENDING`, async () => {
      using h = harness();
      const { providerRef: ref } = await startMomo(h.sims, operator, `+226${national}000002`);
      await authorize(h, ref);
      await h.advance(24 * 3600_000);
      assertEquals(h.delivered.length, 0);
      assertEquals(await h.sims.momo.queryStatus(ref), { status: "PENDING" });
    });

    await t.step(`${national}000003 (${operator}): the same callback delivered twice`, async () => {
      using h = harness();
      const { providerRef: ref } = await startMomo(h.sims, operator, `+226${national}000003`);
      await authorize(h, ref);
      await h.sims.flush();
      assertEquals(h.delivered.length, 2);
      assertEquals(h.delivered[0].body, h.delivered[1].body);
      const parse = h.sims.momo.parseCallback;
      const [a, b] = await Promise.all(
        h.delivered.map((d) => parse({ headers: new Headers(d.headers), rawBody: d.body })),
      );
      assertEquals(a.notificationId, b.notificationId);
      assertEquals(a.status, "SUCCEEDED");
      await h.advance(3600_000);
      assertEquals(h.delivered.length, 2);
    });
  }
});

Deno.test("stop() cancels every timer: nothing runs afterwards, with real timers", async () => {
  const delivered: string[] = [];
  const sims = createSimulators({
    publicBase: BASE,
    secret: SECRET,
    delayMs: 20,
    deliver: (_url, body) => {
      delivered.push(body);
      return Promise.resolve(200);
    },
  });
  // pending: an automatic approval, an OTP success, a card decision
  await sims.momo.initiate({ ...input(), operatorCode: "OPERATOR_B_BF", phone: PHONE_B });
  const otp = await sims.momo.initiate({ ...input(), operatorCode: "OPERATOR_A_BF", phone: PHONE_A });
  await sims.momo.submitOtp(otp.providerRef, "123456");
  const { redirectUrl } = await sims.card.initiate(input());
  await postForm(sims, new URL(redirectUrl).pathname, {
    number: "4242424242424242",
    expiry: "12/30",
    cvc: "123",
  });
  sims.stop();
  await new Promise((r) => setTimeout(r, 60));
  assertEquals(delivered.length, 0);
  // the test sanitizers fail this test if any timer were still pending
});

Deno.test("real timers deliver without flush()", async () => {
  const got = Promise.withResolvers<string>();
  const sims = createSimulators({
    publicBase: BASE,
    secret: SECRET,
    delayMs: 5,
    deliver: (_url, body) => {
      got.resolve(body);
      return Promise.resolve(204);
    },
  });
  try {
    await sims.momo.initiate({ ...input(), operatorCode: "OPERATOR_B_BF", phone: PHONE_B });
    const body = JSON.parse(await got.promise);
    assertEquals(body.status, "SUCCEEDED");
    await sims.flush();
  } finally {
    sims.stop();
  }
});
