// The hosted checkout page of card and mobile money pay-ins, in-process: both mobile money modes and the
// card render in French and English, the SMS code form (wrong code: error inline and nothing changes;
// right code: "processing", then paid once the operator calls back), the JSON the page's script sends,
// a declined card, and what must never reach the customer.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";

const SECRET_META = "vip-customer-secret-42";
const SECRET_REF = "order-secret-ref-7";
const NNBSP = "\u202f";

function assertPageHeaders(headers: Headers) {
  const csp = headers.get("content-security-policy") ?? "";
  assertMatch(csp, /default-src 'none'/);
  assertMatch(csp, /script-src 'nonce-[A-Za-z0-9+/=]{16,}'/);
  assertMatch(csp, /form-action 'self'/);
  assert(!csp.includes("unsafe-inline"), "no unsafe-inline");
  assertEquals(headers.get("x-frame-options"), "DENY");
  assertEquals(headers.get("cache-control"), "no-store");
}

/** Every <script>/<style> carries the CSP nonce; nothing is loaded from elsewhere. */
function assertSelfContained(html: string, headers: Headers) {
  const nonce = /'nonce-([^']+)'/.exec(headers.get("content-security-policy") ?? "")![1];
  for (const [, , attrs] of html.matchAll(/<(script|style)\b([^>]*)>/g)) {
    assert(attrs.includes(`nonce="${nonce}"`), `nonce on ${attrs}`);
  }
  assert(!/<link\b/.test(html), "no external stylesheet");
  assert(!/\sstyle="/.test(html), "no style attributes");
  assert(!/\ssrc="(https?:)?\/\//.test(html), "no outside script or image");
}

/** The views the server shows (not hidden) in a rendered page, by their data-phase. */
function shownPhases(html: string): string[] {
  return [...html.matchAll(/<div data-phase="([^"]+)"([^>]*)>/g)]
    .filter(([, , rest]) => !/\shidden/.test(rest))
    .map(([, phase]) => phase);
}

async function setup() {
  const gw = await startTestGateway();
  const m = await gw.createMerchant("Boutique Ouaga");
  await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
    rateLimits: { "POST /v1/payments": 1000, default: 1000 },
  });
  const key = m.keys.liveSecret;
  const create = async (body: Record<string, unknown>) => {
    const res = await gw.request("POST", "/v1/payments", {
      key,
      body: {
        successUrl: "https://shop.example/merci?order=42",
        cancelUrl: "https://shop.example/panier",
        metadata: { note: SECRET_META },
        externalRef: `${SECRET_REF}-${crypto.randomUUID().slice(0, 8)}`,
        ...body,
      },
    });
    assertEquals(res.status, 201, res.text);
    return res.json.data;
  };
  const momo = (phone: string) =>
    create({ amount: "5000", paymentMethod: "MOBILE_MONEY", customerPhone: phone });
  const card = () =>
    create({
      amount: "12500",
      paymentMethod: "CARD",
      customerName: "Awa Ouedraogo",
      customerEmail: "awa@example.bf",
    });
  const page = (id: string, query = "", headers: Record<string, string> = {}) =>
    gw.request("GET", `/checkout/${id}${query}`, { headers });
  const status = async (id: string) => (await gw.request("GET", `/checkout/${id}/status`)).json;
  const record = async (id: string) => (await gw.request("GET", `/v1/payments/${id}`, { key })).json.data;
  const postOtpForm = (id: string, otp: string, lang = "fr") =>
    gw.request("POST", `/checkout/${id}/otp?lang=${lang}`, {
      rawBody: new URLSearchParams({ otp }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
  const postOtpJson = (id: string, otp: string) =>
    gw.request("POST", `/checkout/${id}/otp`, { body: { otp }, headers: { accept: "application/json" } });
  return { gw, key, momo, card, page, status, record, postOtpForm, postOtpJson };
}

async function eventCount(gw: TestGateway, payinId: string): Promise<number> {
  const rows = await gw.db.query<{ n: string }>(
    "SELECT count(*)::text AS n FROM events WHERE data->>'transactionId' = $1",
    [payinId],
  );
  return Number(rows[0].n);
}

/** Pays on the acquirer's hosted card page, as the customer's browser posts it. */
async function payByCard(gw: TestGateway, hostedPaymentUrl: string, number: string) {
  const path = new URL(hostedPaymentUrl).pathname;
  const form = await gw.request("GET", path);
  assertEquals(form.status, 200);
  const res = await gw.request("POST", path, {
    rawBody: new URLSearchParams({ number, expiry: "12/39", cvc: "123" }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  assertEquals(res.status, 303, res.text);
}

Deno.test("checkout page for card and mobile money", async (t) => {
  const s = await setup();
  const { gw } = s;
  try {
    await t.step(
      "mobile money, OTP mode: amount in XOF, instruction and the code form, FR and EN",
      async () => {
        const p = await s.momo("+22654123456");
        const fr = await s.page(p.transactionId);
        assertEquals(fr.status, 200);
        assertPageHeaders(fr.headers);
        assertSelfContained(fr.text, fr.headers);
        assertEquals(fr.headers.get("content-language"), "fr");
        assertEquals(shownPhases(fr.text), ["waiting"]);
        assert(
          fr.text.includes(`<span id="amt">5${NNBSP}000</span> <small>XOF</small>`),
          "5 000 XOF in French",
        );
        assert(fr.text.includes(p.instruction.fr), "the operator's instruction");
        assert(fr.text.includes("Code reçu par SMS"));
        assertMatch(
          fr.text,
          /<form id="otpf" method="post" action="\/checkout\/pay_[0-9a-z]+\/otp\?lang=fr"/,
        );
        const input = /<input[^>]*id="otp"[^>]*>/.exec(fr.text)![0];
        for (
          const attr of [
            'name="otp"',
            'inputmode="numeric"',
            'autocomplete="one-time-code"',
            'pattern="[0-9]{4,8}"',
            'maxlength="8"',
          ]
        ) {
          assert(input.includes(attr), `${attr} on ${input}`);
        }
        // No error shown yet; all four are rendered hidden for the script.
        assertEquals([...fr.text.matchAll(/<p class="err" data-err="(\w+)" role="alert" hidden/g)].length, 4);
        // The no-script reload would wipe a code being typed: none on this view.
        assert(!fr.text.includes('http-equiv="refresh"'));

        const en = await s.page(p.transactionId, "", { "accept-language": "en-US,en;q=0.9" });
        assertEquals(en.headers.get("content-language"), "en");
        assert(en.text.includes(`<span id="amt">5,000</span> <small>XOF</small>`), "5,000 XOF in English");
        assert(en.text.includes(p.instruction.en));
        assert(en.text.includes("Code received by SMS") && en.text.includes("Confirm the code"));
        const q = await s.page(p.transactionId, "?lang=en");
        assert(q.text.includes('<html lang="en">'));
      },
    );

    await t.step("mobile money, approval mode: the instruction and a waiting state, FR and EN", async () => {
      const p = await s.momo("+22670123456");
      const fr = (await s.page(p.transactionId)).text;
      assertEquals(shownPhases(fr), ["waiting"]);
      assert(fr.includes("Validez la demande sur votre téléphone"));
      assert(fr.includes("En attente de votre validation sur le téléphone"));
      assert(!fr.includes('id="otpf"'), "no code form in approval mode");
      assert(fr.includes('http-equiv="refresh" content="15"'), "reloads itself without script");
      assertMatch(fr, /href="\/simulators\/momo\/sim_momo_[0-9a-f]+\?lang=fr"/);
      const en = (await s.page(p.transactionId, "?lang=en")).text;
      assert(en.includes("Approve the request on your phone to confirm the payment of 5,000 XOF."));
      assert(en.includes("Waiting for your approval on the phone"));
      const st = await s.status(p.transactionId);
      assertEquals(Object.keys(st).sort(), [
        "amountReceived",
        "final",
        "phase",
        "reason",
        "secondsLeft",
        "status",
      ]);
      assertEquals([st.status, st.phase, st.final, st.reason], ["AWAITING_PAYMENT", "waiting", false, null]);
      await gw.simulators.flush(); // the simulated customer approves by themselves
      const paid = await s.status(p.transactionId);
      assertEquals([paid.status, paid.phase, paid.final], ["CONFIRMED", "paid", true]);
      const done = (await s.page(p.transactionId)).text;
      assertEquals(shownPhases(done), ["paid"]);
      assert(done.includes('id="succ" href="https://shop.example/merci?order=42"'));
    });

    await t.step("card: processing, with the way to the acquirer's secure page, FR and EN", async () => {
      const p = await s.card();
      const fr = await s.page(p.transactionId);
      assertSelfContained(fr.text, fr.headers);
      assertEquals(shownPhases(fr.text), ["waiting"]);
      assert(fr.text.includes(`12${NNBSP}500</span> <small>XOF</small>`));
      assert(fr.text.includes("Paiement par carte en cours"));
      assert(fr.text.includes(`id="cardpage" href="${p.hostedPaymentUrl}"`), "button to the acquirer's page");
      assert(fr.text.includes("Continuer vers la page de carte sécurisée"));
      const en = (await s.page(p.transactionId, "?lang=en")).text;
      assert(en.includes("12,500</span>") && en.includes("Continue to the secure card page"));
      const st = await s.status(p.transactionId);
      assertEquals([st.status, st.phase, st.reason], ["AWAITING_PAYMENT", "waiting", null]);
    });

    await t.step("OTP form, wrong code: the error inline, and nothing changes", async () => {
      const p = await s.momo("+22654123457");
      const events = await eventCount(gw, p.transactionId);
      const res = await s.postOtpForm(p.transactionId, "000000");
      assertEquals(res.status, 303);
      const to = res.headers.get("location")!;
      assertEquals(to, `/checkout/${p.transactionId}?lang=fr&otp=OTP_INVALID`);
      const shown = (await s.page(p.transactionId, to.slice(to.indexOf("?")))).text;
      assertEquals(shownPhases(shown), ["waiting"]);
      assertMatch(shown, /<p class="err" data-err="OTP_INVALID" role="alert">Code incorrect\./);
      assertEquals([...shown.matchAll(/data-err="\w+" role="alert" hidden/g)].length, 3);
      assertEquals((await s.record(p.transactionId)).status, "AWAITING_PAYMENT");
      assertEquals(await eventCount(gw, p.transactionId), events);
      await gw.simulators.flush();
      assertEquals((await s.status(p.transactionId)).status, "AWAITING_PAYMENT");
      // Not digits: refused the same way, before the provider.
      const letters = await s.postOtpForm(p.transactionId, "12ab", "en");
      assertEquals(letters.headers.get("location"), `/checkout/${p.transactionId}?lang=en&otp=OTP_INVALID`);
      const en = (await s.page(p.transactionId, "?lang=en&otp=OTP_INVALID")).text;
      assert(en.includes("Wrong code. Check the SMS and try again."));
    });

    await t.step("OTP form, right code: processing, then paid after the operator's callback", async () => {
      const p = await s.momo("+22654123458");
      const res = await s.postOtpForm(p.transactionId, "123456");
      assertEquals(res.status, 303);
      const to = res.headers.get("location")!;
      assertEquals(to, `/checkout/${p.transactionId}?lang=fr&otp=sent`);
      const waiting = (await s.page(p.transactionId, to.slice(to.indexOf("?")))).text;
      assertEquals(shownPhases(waiting), ["processing"]);
      assert(waiting.includes("Code accepté. En attente de la confirmation de l'opérateur"));
      assert(waiting.includes('http-equiv="refresh" content="15"'), "reloads itself without script");
      assertEquals((await s.record(p.transactionId)).status, "AWAITING_PAYMENT");
      await gw.simulators.flush();
      const st = await s.status(p.transactionId);
      assertEquals([st.status, st.phase, st.final, st.reason], ["CONFIRMED", "paid", true, null]);
      // The same code again: the payment no longer takes one.
      const again = await s.postOtpForm(p.transactionId, "123456");
      assertEquals(
        again.headers.get("location"),
        `/checkout/${p.transactionId}?lang=fr&otp=OTP_NOT_APPLICABLE`,
      );
      const page = (await s.page(p.transactionId, "?otp=OTP_NOT_APPLICABLE")).text;
      assertEquals(shownPhases(page), ["paid"]);
    });

    await t.step("the page's script sends JSON and gets JSON", async () => {
      const p = await s.momo("+22654123459");
      const wrong = await s.postOtpJson(p.transactionId, "654321");
      assertEquals(wrong.status, 400);
      assertEquals(wrong.json.error.code, "OTP_INVALID");
      const right = await s.postOtpJson(p.transactionId, "123456");
      assertEquals([right.status, right.json.status, right.json.phase], [
        200,
        "AWAITING_PAYMENT",
        "processing",
      ]);
      const approval = await s.momo("+22670123457");
      const na = await s.postOtpJson(approval.transactionId, "123456");
      assertEquals([na.status, na.json.error.code], [400, "OTP_NOT_APPLICABLE"]);
      const unknown = await s.postOtpJson("pay_0000000000000000000000zzzz", "123456");
      assertEquals(unknown.status, 404);
      const bad = await s.postOtpForm("not-an-id", "123456");
      assertEquals(bad.status, 404);
      await gw.simulators.flush();
      assertEquals((await s.status(p.transactionId)).phase, "paid");
    });

    await t.step("an expired SMS code: OTP_EXPIRED shown inline", async () => {
      const p = await s.momo("+22654123460");
      // The simulator's clock is frozen; each flush moves it one second. The code lives five minutes.
      for (let i = 0; i < 301; i++) await gw.simulators.flush();
      const res = await s.postOtpForm(p.transactionId, "123456");
      assertEquals(res.headers.get("location"), `/checkout/${p.transactionId}?lang=fr&otp=OTP_EXPIRED`);
      const page = (await s.page(p.transactionId, "?lang=fr&otp=OTP_EXPIRED")).text;
      assertMatch(page, /<p class="err" data-err="OTP_EXPIRED" role="alert">Ce code a expiré/);
      assertEquals((await s.record(p.transactionId)).status, "AWAITING_PAYMENT");
    });

    await t.step("card paid on the acquirer's page: the page turns to paid", async () => {
      const p = await s.card();
      await payByCard(gw, p.hostedPaymentUrl, "4242424242424242");
      assertEquals((await s.status(p.transactionId)).phase, "waiting");
      await gw.simulators.flush();
      const page = (await s.page(p.transactionId)).text;
      assertEquals(shownPhases(page), ["paid"]);
      assert(page.includes(`12${NNBSP}500 <small>XOF</small>`), "the amount paid, in XOF");
    });

    await t.step("a declined card: the page says failed, card declined, with the way back", async () => {
      const p = await s.card();
      await payByCard(gw, p.hostedPaymentUrl, "4000000000000002");
      await gw.simulators.flush();
      const st = await s.status(p.transactionId);
      assertEquals([st.status, st.phase, st.final, st.reason], ["FAILED", "failed", true, "card_declined"]);
      const fr = (await s.page(p.transactionId)).text;
      assertEquals(shownPhases(fr), ["failed"]);
      assert(fr.includes("Paiement échoué"));
      assertMatch(fr, /<p class="st bad" data-reason="card_declined">Carte refusée par la banque\.<\/p>/);
      assert(fr.includes('class="btn" href="https://shop.example/panier"'), "back through cancelUrl");
      assert(!fr.includes('http-equiv="refresh"'), "a final page without successUrl does not reload");
      const en = (await s.page(p.transactionId, "?lang=en")).text;
      assert(en.includes("Payment failed") && en.includes("Card declined by the bank."));
    });

    await t.step("mobile money declined on the phone: failed with its reason", async () => {
      const p = await s.momo("+22670123458");
      const phone = /href="(\/simulators\/momo\/sim_momo_[0-9a-f]+)\?lang=fr"/.exec(
        (await s.page(p.transactionId)).text,
      )![1];
      const declined = await gw.request("POST", `${phone}/decline`);
      assertEquals(declined.json.ok, true);
      await gw.simulators.flush();
      const st = await s.status(p.transactionId);
      assertEquals([st.phase, st.reason], ["failed", "customer_rejected"]);
      const fr = (await s.page(p.transactionId)).text;
      assertMatch(fr, /data-reason="customer_rejected">La demande a été refusée sur le téléphone/);
    });

    await t.step("nothing merchant-internal reaches the customer", async () => {
      const p = await s.momo("+22654123461");
      const c = await s.card();
      for (const id of [p.transactionId, c.transactionId]) {
        for (const q of ["?lang=fr", "?lang=en"]) {
          const html = (await s.page(id, q)).text;
          for (const secret of [SECRET_META, "serviceFee", "metadata", "externalRef", "+22654123461"]) {
            assert(!html.includes(secret), `page leaks ${secret}`);
          }
          // The order's own reference is shown, so the customer knows what they pay (issue 12, item 7).
          assertMatch(html, new RegExp(`data-ref>${SECRET_REF}-`));
        }
        const json = JSON.stringify(await s.status(id));
        for (const secret of [SECRET_META, SECRET_REF, "metadata", "Fee", "net", "sim_"]) {
          assert(!json.includes(secret), `status leaks ${secret}`);
        }
      }
    });

    await t.step(
      "the pages stay small: under 13 KB (12 KB before the payee block of issue 12, item 7)",
      async () => {
        for (const p of [await s.momo("+22654123462"), await s.momo("+22670123459"), await s.card()]) {
          const html = (await s.page(p.transactionId)).text;
          const bytes = new TextEncoder().encode(html).length;
          assert(bytes < 13_000, `${bytes} bytes`);
        }
      },
    );
  } finally {
    await gw.close();
  }
});
