// Card and mobile money end to end over HTTP against the real server, as a merchant (and a customer's
// browser, by plain requests) would drive it: merchant, webhook endpoint on a local receiver, a card paid
// on the acquirer's hosted form, mobile money by SMS code (submit-otp) and by approval on the simulated
// phone, each CONFIRMED with its fee, credited to the right XOF wallet, and `payin.confirmed` signed with
// the fiat payload; a declined card ends FAILED in the API, in `payin.failed` and on the page.
//
// The mobile money simulator approves by itself SIMULATOR_DELAY_MS after creation, so the approval done
// by hand on the simulated phone runs on a second server whose delay is long enough never to fire.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { approvedMerchant, type RunningGateway, startGateway, until } from "./process.ts";
import { startReceiver } from "./receiver.ts";

const ADMIN_TOKEN = "e2e-admin-token-0123456789";

/** A port free right now: PUBLIC_URL must name the real port, or the acquirer's return URL is wrong. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

type Shop = Awaited<ReturnType<typeof openShop>>;

/** A real server with a merchant whose webhook endpoint is a local receiver. */
async function openShop(delayMs: number, label: string) {
  const dataDir = await Deno.makeTempDir({ prefix: `gateway-e2e-fiat-${label}-` });
  const port = freePort();
  const gw: RunningGateway = await startGateway({
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    SIMULATOR_DELAY_MS: String(delayMs),
  });
  const receiver = startReceiver();
  const { key } = await approvedMerchant(gw.url, ADMIN_TOKEN);
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${gw.url}${path}`, {
      method,
      headers: { "x-api-key": key, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, json: await res.json() };
  };
  const endpoint = await api("POST", "/v1/webhooks/endpoints", {
    url: receiver.url,
    events: ["payin.created", "payin.confirmed", "payin.failed"],
  });
  assertEquals(endpoint.status, 201, JSON.stringify(endpoint.json));
  receiver.setSecret(endpoint.json.data.secret);
  const wallet = async (rail: "MOMO" | "CARD") => {
    const res = await api("GET", "/v1/merchant/balances/XOF");
    assertEquals(res.status, 200);
    return res.json.data.wallets.find((w: { rail: string }) => w.rail === rail).balance as string;
  };
  const settled = (id: string, status: string) =>
    until(status, async () => {
      const r = await api("GET", `/v1/payments/${id}`);
      return r.json.data.status === status ? r.json.data : undefined;
    });
  return {
    gw,
    receiver,
    key,
    api,
    wallet,
    settled,
    async close() {
      await gw.stop();
      await receiver.stop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

/** The signed `payin.confirmed` of a card or mobile money pay-in, with its fiat fields. */
async function assertConfirmedHook(shop: Shop, id: string, amount: string, fee: string) {
  const hook = await shop.receiver.waitFor((w) =>
    w.event === "payin.confirmed" && w.data.transactionId === id
  );
  assert(hook.signatureValid, "payin.confirmed signature verifies");
  assertEquals(hook.data.status, "CONFIRMED");
  assertEquals([hook.data.amountRequested, hook.data.amount, hook.data.currency], [amount, amount, "XOF"]);
  assertEquals([hook.data.pricingCurrency, hook.data.pricingAmount], ["XOF", amount]);
  assertEquals(hook.data.fxRate, "1.00000000");
  assertMatch(String(hook.data.fxRate), /^\d+\.\d{8}$/);
  assertEquals(hook.data.fee, fee);
  return hook;
}

/** The customer's browser on the acquirer's hosted form: GET it, POST the card, follow to "processing". */
async function payOnCardForm(hostedPaymentUrl: string, number: string, checkoutUrl: string) {
  const form = await fetch(hostedPaymentUrl);
  assertEquals(form.status, 200);
  const html = await form.text();
  for (const field of ['name="number"', 'name="expiry"', 'name="cvc"']) assert(html.includes(field), field);
  const posted = await fetch(hostedPaymentUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ number, expiry: "12/39", cvc: "123" }),
    redirect: "manual",
  });
  assertEquals(posted.status, 303, await posted.text());
  const next = new URL(posted.headers.get("location")!, hostedPaymentUrl).href;
  const processing = await (await fetch(next)).text();
  // The acquirer sends the customer back to our checkout page.
  assert(processing.includes(checkoutUrl), "the acquirer returns the customer to our page");
}

Deno.test({
  name: "card and mobile money end to end: real server, simulators, wallets, signed webhooks",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const shop = await openShop(300, "fast");
    let manual: Shop | undefined;
    try {
      await t.step(
        "card: paid on the acquirer's form, CONFIRMED, CARD wallet credited net of 3.5 %",
        async () => {
          const before = Number(await shop.wallet("CARD"));
          const res = await shop.api("POST", "/v1/payments", {
            amount: "10000",
            paymentMethod: "CARD",
            customerName: "Awa Ouedraogo",
            customerEmail: "awa@example.bf",
            externalRef: "e2e-card-1",
            metadata: { cart: "C1" },
          });
          assertEquals(res.status, 201, JSON.stringify(res.json));
          const p = res.json.data;
          assertEquals(p.status, "AWAITING_PAYMENT");
          assertMatch(p.hostedPaymentUrl, new RegExp(`^${shop.gw.url}/simulators/card/`));
          await payOnCardForm(
            p.hostedPaymentUrl,
            "4242 4242 4242 4242",
            `${shop.gw.url}/checkout/${p.transactionId}`,
          );
          const done = await shop.settled(p.transactionId, "CONFIRMED");
          assertEquals([done.paymentMethod, done.amountReceived, done.serviceFee], ["CARD", "10000", "350"]);
          assertEquals(done.netAmount, "9650");
          assertEquals(Number(await shop.wallet("CARD")) - before, 9650);
          const hook = await assertConfirmedHook(shop, p.transactionId, "10000", "350");
          assertEquals([hook.data.paymentMethod, hook.data.externalRef], ["CARD", "e2e-card-1"]);
          assertEquals(hook.data.metadata, { cart: "C1" });
          const page = await (await fetch(`${shop.gw.url}/checkout/${p.transactionId}/status`)).json();
          assertEquals([page.status, page.phase], ["CONFIRMED", "paid"]);
        },
      );

      await t.step(
        "mobile money by SMS code: submit-otp, CONFIRMED, MOMO wallet credited net of 2 %",
        async () => {
          const beforeMomo = Number(await shop.wallet("MOMO"));
          const beforeCard = Number(await shop.wallet("CARD"));
          const res = await shop.api("POST", "/v1/payments", {
            amount: "5000",
            paymentMethod: "MOBILE_MONEY",
            customerPhone: "+22654123456",
          });
          assertEquals(res.status, 201, JSON.stringify(res.json));
          const p = res.json.data;
          assertEquals([p.nextStep, p.operatorCode], ["otp", "OPERATOR_A_BF"]);
          assertEquals(p.hostedPaymentUrl, `${shop.gw.url}/checkout/${p.transactionId}`);
          const wrong = await shop.api("POST", `/v1/payments/${p.transactionId}/submit-otp`, {
            otp: "000000",
          });
          assertEquals([wrong.status, wrong.json.error.code], [400, "OTP_INVALID"]);
          const ok = await shop.api("POST", `/v1/payments/${p.transactionId}/submit-otp`, { otp: "123456" });
          assertEquals(ok.status, 200, JSON.stringify(ok.json));
          assertEquals(ok.json.data, { transactionId: p.transactionId, status: "AWAITING_PAYMENT" });
          const done = await shop.settled(p.transactionId, "CONFIRMED");
          assertEquals([done.paymentMethod, done.serviceFee, done.netAmount], [
            "MOBILE_MONEY",
            "100",
            "4900",
          ]);
          assertEquals(Number(await shop.wallet("MOMO")) - beforeMomo, 4900);
          assertEquals(Number(await shop.wallet("CARD")) - beforeCard, 0, "the card wallet is not touched");
          await assertConfirmedHook(shop, p.transactionId, "5000", "100");
        },
      );

      await t.step(
        "a declined card: FAILED in the API, in payin.failed with its reason, and on the page",
        async () => {
          const before = await shop.wallet("CARD");
          const res = await shop.api("POST", "/v1/payments", {
            amount: "2500",
            paymentMethod: "CARD",
            customerName: "Awa Ouedraogo",
            customerEmail: "awa@example.bf",
          });
          const p = res.json.data;
          const checkoutUrl = `${shop.gw.url}/checkout/${p.transactionId}`;
          await payOnCardForm(p.hostedPaymentUrl, "4000000000000002", checkoutUrl);
          const failed = await shop.settled(p.transactionId, "FAILED");
          assertEquals([failed.failureReason, failed.serviceFee], ["CARD_DECLINED", "0"]);
          const hook = await shop.receiver.waitFor((w) =>
            w.event === "payin.failed" && w.data.transactionId === p.transactionId
          );
          assert(hook.signatureValid);
          assertEquals([hook.data.status, hook.data.reason], ["FAILED", "CARD_DECLINED"]);
          const page = await (await fetch(`${checkoutUrl}?lang=en`)).text();
          assertMatch(page, /<div data-phase="failed" class="done">/);
          assert(page.includes("Payment failed") && page.includes("Card declined by the bank."));
          assertEquals(await shop.wallet("CARD"), before);
          assert(
            !shop.receiver.received.some((w) =>
              w.event === "payin.confirmed" && w.data.transactionId === p.transactionId
            ),
          );
        },
      );

      await t.step("mobile money by approval on the simulated phone: CONFIRMED, MOMO wallet", async () => {
        manual = await openShop(600_000, "manual");
        const res = await manual.api("POST", "/v1/payments", {
          amount: "3000",
          paymentMethod: "MOBILE_MONEY",
          customerPhone: "+22670123456",
        });
        assertEquals(res.status, 201, JSON.stringify(res.json));
        const p = res.json.data;
        assertEquals([p.nextStep, p.operatorCode], ["approval", "OPERATOR_B_BF"]);
        // The simulated phone is linked from the checkout page (the API never shows the provider's ref).
        const page = await (await fetch(p.hostedPaymentUrl)).text();
        const phone = /href="(\/simulators\/momo\/sim_momo_[0-9a-f]+)\?lang=fr"/.exec(page)?.[1];
        assert(phone, "the page links the simulated phone");
        const approved = await fetch(`${manual.gw.url}${phone}/approve`, { method: "POST" });
        assertEquals(approved.status, 200);
        assertEquals((await approved.json()).ok, true);
        const done = await manual.settled(p.transactionId, "CONFIRMED");
        assertEquals([done.serviceFee, done.netAmount], ["60", "2940"]);
        assertEquals(await manual.wallet("MOMO"), "2940");
        assertEquals(await manual.wallet("CARD"), "0");
        await assertConfirmedHook(manual, p.transactionId, "3000", "60");
        const again = await fetch(`${manual.gw.url}${phone}/approve`, { method: "POST" });
        assertEquals(again.status, 409, "approved once");
      });
    } finally {
      await shop.close();
      await manual?.close();
    }
  },
});
