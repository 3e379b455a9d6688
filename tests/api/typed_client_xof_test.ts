// README's card and mobile money walk-through through the generated client (tests/typed_client.ts): a card
// pay-in paid on the acquirer's page with a test card, a mobile money pay-in confirmed with the SMS code,
// each CONFIRMED by the provider's signed callback and credited net of the rail's fee.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { ok, type Walkthrough, withWalkthrough } from "../typed_client.ts";

async function xofWallet(w: Walkthrough, rail: "CARD" | "MOMO") {
  const summary = ok(await w.live.GET("/v1/wallets/balance"), 200).data;
  const wallet = summary.balances.find((b) => b.currency === "XOF" && b.rail === rail);
  assert(wallet, `the merchant has an XOF/${rail} wallet`);
  return wallet;
}

Deno.test(
  "README through the generated client: a card pay-in and a mobile money pay-in in XOF",
  withWalkthrough(async (w) => {
    const status = async (id: string) =>
      ok(await w.live.GET("/v1/payments/{id}", { params: { path: { id } } }), 200).data.status;

    // Card: the customer is sent to hostedPaymentUrl (the acquirer's card page) and pays with 4242...
    const card = ok(
      await w.live.POST("/v1/payments", {
        body: {
          amount: "5000",
          paymentMethod: "CARD",
          customerName: "Awa Ouedraogo",
          customerEmail: "awa@example.bf",
        },
      }),
      201,
    ).data;
    assert("paymentMethod" in card && card.paymentMethod === "CARD", "the card answer");
    assertEquals([card.amount, card.currency, card.status], ["5000", "XOF", "AWAITING_PAYMENT"]);
    const acquirerPage = new URL(card.hostedPaymentUrl);
    assertMatch(acquirerPage.pathname, /^\/simulators\/card\//);
    await w.plain(
      "POST",
      acquirerPage.pathname,
      new URLSearchParams({ number: "4242 4242 4242 4242", expiry: "12/39", cvc: "123" }).toString(),
      "application/x-www-form-urlencoded",
    );
    await w.until("CONFIRMED", async () => (await status(card.transactionId)) === "CONFIRMED");
    const paidByCard =
      ok(await w.live.GET("/v1/payments/{id}", { params: { path: { id: card.transactionId } } }), 200)
        .data;
    assertEquals([paidByCard.serviceFee, paidByCard.netAmount], ["175", "4825"]); // card 3.5 %
    assertEquals((await xofWallet(w, "CARD")).balance, "4825");

    // Mobile money: +226 54... is an SMS-code operator, so nextStep is "otp"; the code is submitted.
    const momo = ok(
      await w.live.POST("/v1/payments", {
        body: { amount: "5000", paymentMethod: "MOBILE_MONEY", customerPhone: "+22654123456" },
      }),
      201,
    ).data;
    assert("nextStep" in momo, "the mobile money answer");
    assertEquals([momo.nextStep, momo.operatorCode, momo.status], [
      "otp",
      "OPERATOR_A_BF",
      "AWAITING_PAYMENT",
    ]);
    const wrong = await w.live.POST("/v1/payments/{id}/submit-otp", {
      params: { path: { id: momo.transactionId } },
      body: { otp: "000000" },
    });
    assertEquals([wrong.response.status, wrong.error?.error.code], [400, "OTP_INVALID"]);
    ok(
      await w.live.POST("/v1/payments/{id}/submit-otp", {
        params: { path: { id: momo.transactionId } },
        body: { otp: "123456" },
      }),
      200,
    );
    await w.until("CONFIRMED", async () => (await status(momo.transactionId)) === "CONFIRMED");
    assertEquals((await xofWallet(w, "MOMO")).balance, "4900"); // mobile money 2 %

    // Below the rail's minimum (500 XOF for mobile money) is refused with its code.
    const tooLow = await w.live.POST("/v1/payments", {
      body: { amount: "400", paymentMethod: "MOBILE_MONEY", customerPhone: "+22654123456" },
    });
    assertEquals([tooLow.response.status, tooLow.error?.error.code], [400, "AMOUNT_BELOW_MINIMUM"]);
  }),
);
