// Chargebacks from the card acquirer open disputes with the amount held: the simulator's signed
// notification, its repeats (one dispute, one hold), forged ones, and amounts beyond the pay-in.
import { signCallback } from "../../rails/fiat/signing.ts";
import { assert, assertEquals } from "../assert.ts";
import { type TestGateway, withGateway } from "../helpers.ts";
import {
  assertLedgerConsistent,
  disputeEvents,
  disputeJournals,
  paidCardPayin,
  raiseChargeback,
  xofCardWallet,
} from "../dispute_fixture.ts";

/** The merchant's balances view of the XOF/CARD wallet: [available, heldForDisputes, owedToDisputes]. */
async function cardFigures(gw: TestGateway, key: string) {
  const res = await gw.request("GET", "/v1/merchant/balances/XOF", { key });
  const w = res.json.data.wallets.find((x: { rail: string }) => x.rail === "CARD");
  return [w.available, w.heldForDisputes, w.owedToDisputes];
}

Deno.test(
  "a chargeback opens a dispute holding the amount; what the wallet lacks is the shortfall",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Boutique Koudougou");
    const key = m.keys.liveSecret;
    const { id, providerRef } = await paidCardPayin(gw, key, "10000");
    assertEquals(await xofCardWallet(gw, key), "9650"); // 3.5 % card fee
    const raised = await raiseChargeback(gw, providerRef, { reason: "FRAUD_CARD_ABSENT" });
    assertEquals(raised.status, 200, JSON.stringify(raised.json));
    const list = (await gw.request("GET", "/v1/disputes", { key })).json.data;
    assertEquals(list.meta.total, 1);
    const d = list.items[0];
    assertEquals(
      [d.transactionId, d.status, d.source, d.amount, d.heldAmount, d.shortfall, d.reason, d.cardOrigin],
      [id, "OPEN", "PROVIDER", "10000", "9650", "350", "FRAUD_CARD_ABSENT", "LOCAL"],
    );
    assertEquals(d.caseRef, raised.json.caseId);
    assert(new Date(d.evidenceDueAt) > new Date(d.createdAt));
    // The wallet is emptied by the hold, never below zero; the event went out with the record.
    assertEquals(await xofCardWallet(gw, key), "0");
    assertEquals(await cardFigures(gw, key), ["0", "9650", "350"]);
    assertEquals(await disputeEvents(gw, d.id), ["dispute.opened"]);
    assertEquals(await disputeJournals(gw, d.id), ["DISPUTE_HOLD"]);
    await assertLedgerConsistent(gw);
    // The merchant's view of the dispute equals the list's item.
    const one = await gw.request("GET", `/v1/disputes/${d.id}`, { key });
    assertEquals(one.json.data, d);
    // The next credit pays the shortfall (the sweep job takes it).
    await paidCardPayin(gw, key, "1000"); // +965
    await gw.request("GET", "/v1/disputes", { key });
    const { sweepDisputes } = await import("../../domain/disputes/sweep.ts");
    assertEquals((await sweepDisputes(gw.deps)).collected, 1);
    assertEquals((await sweepDisputes(gw.deps)).collected, 0);
    const after = (await gw.request("GET", `/v1/disputes/${d.id}`, { key })).json.data;
    assertEquals([after.heldAmount, after.shortfall], ["10000", "0"]);
    assertEquals(await xofCardWallet(gw, key), "615");
    assertEquals(await cardFigures(gw, key), ["615", "10000", "0"]);
    assertEquals(await disputeJournals(gw, d.id), ["DISPUTE_HOLD", "DISPUTE_HOLD"]);
    await assertLedgerConsistent(gw);
  }),
);

Deno.test(
  "the same chargeback notified again, or replayed 20 times at once, opens one dispute and holds once",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Librairie Bobo");
    const key = m.keys.liveSecret;
    const { providerRef } = await paidCardPayin(gw, key, "20000");
    // Every notification the simulator sends, so one can be replayed byte for byte.
    const sent: Array<{ body: string; headers: Record<string, string> }> = [];
    const original = gw.app.fetch;
    gw.app.fetch = (request: Request, ...rest: unknown[]) => {
      if (request.url.includes("/chargeback-callback")) {
        const clone = request.clone();
        void clone.text().then((body) => sent.push({ body, headers: Object.fromEntries(request.headers) }));
      }
      return (original as (r: Request, ...x: unknown[]) => Response | Promise<Response>)(request, ...rest);
    };
    const raised = await raiseChargeback(gw, providerRef, { amount: "5000", copies: 2 });
    assertEquals(raised.status, 200);
    await new Promise((r) => setTimeout(r, 0));
    assertEquals(sent.length, 2);
    const replays = await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          gw.request("POST", "/v1/providers/simulator/card/chargeback-callback", {
            rawBody: sent[0].body,
            headers: sent[0].headers,
          }),
      ),
    );
    for (const r of replays) {
      assertEquals(r.status, 200, r.text);
      assertEquals(r.json.data.duplicate, true);
    }
    const list = (await gw.request("GET", "/v1/disputes", { key })).json.data;
    assertEquals(list.meta.total, 1);
    assertEquals([list.items[0].amount, list.items[0].heldAmount], ["5000", "5000"]);
    assertEquals(await disputeEvents(gw, list.items[0].id), ["dispute.opened"]);
    assertEquals(await disputeJournals(gw, list.items[0].id), ["DISPUTE_HOLD"]);
    assertEquals(await xofCardWallet(gw, key), String(20000 - 700 - 5000));
    await assertLedgerConsistent(gw);
  }),
);

Deno.test(
  "forged, stale or mismatched notifications and impossible amounts open nothing",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Pharmacie Ouaga");
    const key = m.keys.liveSecret;
    const { id, providerRef } = await paidCardPayin(gw, key, "3000");
    const body = (over: Record<string, unknown> = {}) =>
      JSON.stringify({
        notificationId: "ntf_x",
        caseId: `case_${crypto.randomUUID()}`,
        providerRef,
        reference: id,
        amount: "3000",
        reason: "NOT_RECEIVED",
        cardOrigin: "INTERNATIONAL",
        occurredAt: new Date().toISOString(),
        ...over,
      });
    const post = async (raw: string, secret = gw.deps.config.fiat.callbackSecret!, at = new Date()) =>
      await gw.request("POST", "/v1/providers/simulator/card/chargeback-callback", {
        rawBody: raw,
        headers: {
          "content-type": "application/json",
          "x-provider-signature": await signCallback(secret, raw, at),
        },
      });
    const forged = await post(body(), "not-the-secret-not-the-secret-not-the");
    assertEquals([forged.status, forged.json.error.code], [400, "INVALID_WEBHOOK_SIGNATURE"]);
    const stale = await post(body(), undefined, new Date(Date.now() - 3_600_000));
    assertEquals(stale.json.error.code, "INVALID_WEBHOOK_SIGNATURE");
    const unsigned = await gw.request("POST", "/v1/providers/simulator/card/chargeback-callback", {
      rawBody: body(),
      headers: { "content-type": "application/json" },
    });
    assertEquals(unsigned.json.error.code, "INVALID_WEBHOOK_SIGNATURE");
    assertEquals((await post(body({ providerRef: "sim_card_other" }))).json.error.code, "BAD_REQUEST");
    assertEquals((await post(body({ reference: "pay_01k0000000000000000000000" }))).status, 404);
    assertEquals((await post(body({ amount: "3001" }))).json.error.code, "INVALID_AMOUNT");
    assertEquals((await post(body({ amount: "-5" }))).json.error.code, "BAD_REQUEST");
    assertEquals((await post(body({ extra: "\u0000" }))).status, 400);
    assertEquals((await post("{not json")).json.error.code, "BAD_REQUEST");
    assertEquals((await gw.request("GET", "/v1/disputes", { key })).json.data.meta.total, 0);
    // A real one, international: 30 working hours; then the pay-in is fully disputed.
    const ok = await post(body());
    assertEquals([ok.status, ok.json.data.status], [200, "OPEN"]);
    const again = await post(body());
    assertEquals(again.json.error.code, "INVALID_STATE");
    // The simulator refuses a payment it never captured or an amount above it.
    assertEquals((await raiseChargeback(gw, "sim_card_unknown")).status, 404);
    assertEquals((await raiseChargeback(gw, providerRef, { amount: "999999" })).status, 409);
    await assertLedgerConsistent(gw);
  }),
);

Deno.test(
  "20 copies of a full-amount chargeback at once: all answer the one dispute, none is refused",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Cordonnerie Koupéla");
    const key = m.keys.liveSecret;
    const { id, providerRef } = await paidCardPayin(gw, key, "4000");
    const raw = JSON.stringify({
      notificationId: "ntf_full",
      caseId: "case_full",
      providerRef,
      reference: id,
      amount: "4000",
      reason: "FRAUD_CARD_ABSENT",
      cardOrigin: "LOCAL",
      occurredAt: new Date().toISOString(),
    });
    const signature = await signCallback(gw.deps.config.fiat.callbackSecret!, raw, new Date());
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        gw.request("POST", "/v1/providers/card/chargeback-callback", {
          rawBody: raw,
          headers: { "content-type": "application/json", "x-provider-signature": signature },
        })),
    );
    for (const a of answers) assertEquals(a.status, 200, a.text);
    assertEquals(new Set(answers.map((a) => a.json.data.disputeId)).size, 1);
    assertEquals(answers.filter((a) => !a.json.data.duplicate).length, 1);
    const list = (await gw.request("GET", "/v1/disputes", { key })).json.data;
    assertEquals(list.meta.total, 1);
    assertEquals(await disputeJournals(gw, list.items[0].id), ["DISPUTE_HOLD"]);
    await assertLedgerConsistent(gw);
  }),
);
