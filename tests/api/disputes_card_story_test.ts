// A card dispute as a merchant lives it, from the acquirer's chargeback to its outcome: the simulator
// raises the chargeback (the amount held), the merchant answers with text and a file, and the acquirer's
// outcome decides: won (the hold comes back) or, for another payment, lost (the held amount is gone).
// The merchant's receiver verifies every signed dispute.* delivery.
import { deliveryPump, handleWebhookDeliver } from "../../jobs/webhook_delivery.ts";
import { assert, assertEquals } from "../assert.ts";
import { type TestGateway, withGateway } from "../helpers.ts";
import { startReceiver } from "../e2e/receiver.ts";
import {
  assertLedgerConsistent,
  disputeEvents,
  disputeJournals,
  paidCardPayin,
  raiseChargeback,
  xofCardWallet,
} from "../dispute_fixture.ts";

const PDF = new TextEncoder().encode("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");

async function sendEvidence(gw: TestGateway, key: string, id: string, text: string) {
  const form = new FormData();
  form.append("text", text);
  form.append("file1", new File([PDF], "bon de livraison.pdf", { type: "application/pdf" }));
  const res = await gw.app.request(`/v1/disputes/${id}/evidence`, {
    method: "POST",
    headers: { "x-api-key": key },
    body: form,
  });
  return { status: res.status, json: await res.json() };
}

/** The simulated acquirer announces its outcome for a chargeback case (signed, as in development). */
async function announce(gw: TestGateway, providerRef: string, caseId: string, outcome: "WON" | "LOST") {
  const res = await gw.app.request(`/simulators/card/${providerRef}/dispute-outcome`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ caseId, outcome }),
  });
  assertEquals(res.status, 200);
  await res.body?.cancel();
}

/** [available, heldForDisputes] of the merchant's XOF/CARD wallet, as GET /v1/merchant/balances shows. */
async function cardFigures(gw: TestGateway, key: string) {
  const res = await gw.request("GET", "/v1/merchant/balances/XOF", { key });
  const w = res.json.data.wallets.find((x: { rail: string }) => x.rail === "CARD");
  return [w.available, w.heldForDisputes];
}

async function deliverAll(gw: TestGateway) {
  for (const { message } of gw.enqueued.splice(0).filter((e) => e.message.type === "webhook.deliver")) {
    await handleWebhookDeliver(message as Extract<typeof message, { type: "webhook.deliver" }>, gw.deps);
  }
  await deliveryPump(gw.deps).idle();
}

/** A chargeback raised by the simulator on a fresh card payment; answers the dispute as the merchant sees it. */
async function chargedBack(gw: TestGateway, key: string, amount: string, disputed: string) {
  const payin = await paidCardPayin(gw, key, amount);
  const raised = await raiseChargeback(gw, payin.providerRef, { amount: disputed, reason: "NOT_RECEIVED" });
  assertEquals(raised.status, 200, JSON.stringify(raised.json));
  const list = await gw.request("GET", `/v1/disputes?transactionId=${payin.id}`, { key });
  const [d] = list.json.data.items;
  assertEquals([d.status, d.source, d.amount, d.heldAmount], ["OPEN", "PROVIDER", disputed, disputed]);
  return { ...payin, disputeId: d.id as string, caseId: raised.json.caseId as string };
}

Deno.test(
  "card disputes from the simulator's chargeback: evidence then won; another, evidence then lost",
  withGateway(async (gw) => {
    const receiver = startReceiver();
    try {
      const m = await gw.createMerchant("Boutique Banfora");
      const key = m.keys.liveSecret;
      const endpoint = (await gw.request("POST", "/v1/webhooks/endpoints", {
        key,
        body: { url: receiver.url, events: ["dispute.opened", "dispute.resolved", "dispute.rejected"] },
      })).json.data;
      receiver.setSecret(endpoint.secret);

      // Won: 4,000 of a 10,000 payment disputed, answered with a delivery note, decided for the merchant.
      const won = await chargedBack(gw, key, "10000", "4000");
      assertEquals(await cardFigures(gw, key), ["5650", "4000"]); // 9,650 credited, 4,000 of it held
      const answered = await sendEvidence(gw, key, won.disputeId, "Livré le 3 mars, signé par le client.");
      assertEquals(answered.status, 200, JSON.stringify(answered.json));
      assertEquals(answered.json.data.status, "UNDER_REVIEW");
      assertEquals(answered.json.data.evidence.files.length, 1);
      await announce(gw, won.providerRef, won.caseId, "WON");
      const afterWin = (await gw.request("GET", `/v1/disputes/${won.disputeId}`, { key })).json.data;
      assertEquals([afterWin.status, afterWin.outcome, afterWin.heldAmount], [
        "RESOLVED",
        "PROVIDER_WON",
        "0",
      ]);
      assertEquals(afterWin.evidence.text, "Livré le 3 mars, signé par le client.");
      assertEquals(await cardFigures(gw, key), ["9650", "0"]);
      assertEquals(await disputeJournals(gw, won.disputeId), ["DISPUTE_HOLD", "DISPUTE_RELEASE"]);
      const wonPayin = (await gw.request("GET", `/v1/payments/${won.id}`, { key })).json.data;
      assertEquals([wonPayin.disputed, wonPayin.refundedAmount], [true, "0"]);
      await assertLedgerConsistent(gw);

      // Lost: the whole of another 10,000 disputed, answered, decided for the cardholder.
      const lost = await chargedBack(gw, key, "10000", "10000");
      assertEquals(await cardFigures(gw, key), ["9300", "10000"]); // 9,650 + 9,650 - 10,000 held
      const second = await sendEvidence(gw, key, lost.disputeId, "Colis remis au transporteur.");
      assertEquals([second.status, second.json.data.status], [200, "UNDER_REVIEW"]);
      await announce(gw, lost.providerRef, lost.caseId, "LOST");
      const afterLoss = (await gw.request("GET", `/v1/disputes/${lost.disputeId}`, { key })).json.data;
      assertEquals([afterLoss.status, afterLoss.outcome, afterLoss.heldAmount], [
        "REJECTED",
        "PROVIDER_LOST",
        "0",
      ]);
      // The held 10,000 left for good: the wallet keeps 9,300, nothing held any more.
      assertEquals(await cardFigures(gw, key), ["9300", "0"]);
      assertEquals(await xofCardWallet(gw, key), "9300");
      assertEquals(await disputeJournals(gw, lost.disputeId), ["DISPUTE_HOLD", "DISPUTE_DEBIT"]);
      // A closed dispute takes no more evidence.
      const late = await sendEvidence(gw, key, lost.disputeId, "Trop tard");
      assertEquals([late.status, late.json.error.code], [400, "INVALID_TRANSACTION_STATUS"]);
      await assertLedgerConsistent(gw);

      // What the merchant's receiver got: each dispute's events once, every one signed and verified.
      assertEquals(await disputeEvents(gw, won.disputeId), ["dispute.opened", "dispute.resolved"]);
      assertEquals(await disputeEvents(gw, lost.disputeId), ["dispute.opened", "dispute.rejected"]);
      await deliverAll(gw);
      for (const got of receiver.received) assert(got.signatureValid, got.rawBody);
      // Deliveries run concurrently: each event once, in whatever order it arrived.
      const seen = (id: string) =>
        receiver.received.filter((r) => r.data.disputeId === id).map((r) => `${r.event} ${r.data.status}`)
          .sort();
      assertEquals(seen(won.disputeId), ["dispute.opened OPEN", "dispute.resolved RESOLVED"]);
      assertEquals(seen(lost.disputeId), ["dispute.opened OPEN", "dispute.rejected REJECTED"]);
    } finally {
      await receiver.stop();
    }
  }),
);
