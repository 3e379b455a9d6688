// The card acquirer's outcome of a chargeback (issue 23): WON releases the hold, LOST debits it,
// ESCALATED keeps it, each through the dispute state table once. Replays, repeated outcomes and 20
// concurrent copies move nothing more; forged signatures and disputes an operator already decided are
// refused with nothing changed.
import { signCallback } from "../../rails/fiat/signing.ts";
import { assertEquals } from "../assert.ts";
import { type TestGateway, withGateway } from "../helpers.ts";
import { OPERATOR_TEST_ENV, operatorClient } from "../operator_helpers.ts";
import {
  assertLedgerConsistent,
  disputeEvents,
  disputeJournals,
  paidCardPayin,
  raiseChargeback,
  xofCardWallet,
} from "../dispute_fixture.ts";

const CALLBACK = "/v1/providers/simulator/card/dispute-outcome-callback";

/** A paid card pay-in of `amount` with a chargeback of `disputed`: the dispute and what to sign. */
async function disputed(gw: TestGateway, key: string, amount: string, disputed: string) {
  const { id: payinId, providerRef } = await paidCardPayin(gw, key, amount);
  const raised = await raiseChargeback(gw, providerRef, { amount: disputed });
  assertEquals(raised.status, 200);
  const list = (await gw.request("GET", `/v1/disputes?transactionId=${payinId}`, { key })).json.data;
  const id = list.items.find((d: { caseRef: string }) => d.caseRef === raised.json.caseId).id as string;
  return { id, payinId, providerRef, caseId: raised.json.caseId as string };
}

/** The simulated acquirer announces the outcome (signed, as in development). */
async function announce(gw: TestGateway, providerRef: string, caseId: string, outcome: string, copies = 1) {
  const res = await gw.app.request(`/simulators/card/${providerRef}/dispute-outcome`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ caseId, outcome, copies }),
  });
  assertEquals(res.status, 200);
  await res.body?.cancel();
}

/** A hand-signed outcome notification, to replay or forge. */
async function post(gw: TestGateway, raw: string, secret = gw.deps.config.fiat.callbackSecret!) {
  return await gw.request("POST", CALLBACK, {
    rawBody: raw,
    headers: {
      "content-type": "application/json",
      "x-provider-signature": await signCallback(secret, raw, new Date()),
    },
  });
}

function outcomeBody(
  d: { payinId: string; providerRef: string; caseId: string },
  over: Record<string, unknown>,
) {
  return JSON.stringify({
    notificationId: `ntf_${crypto.randomUUID()}`,
    caseId: d.caseId,
    providerRef: d.providerRef,
    reference: d.payinId,
    outcome: "WON",
    occurredAt: new Date().toISOString(),
    ...over,
  });
}

async function view(gw: TestGateway, key: string, id: string) {
  const d = (await gw.request("GET", `/v1/disputes/${id}`, { key })).json.data;
  return [d.status, d.outcome, d.heldAmount];
}

Deno.test(
  "won: the hold comes back; lost: the held amount is debited; escalated: the hold stays, then lost",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Boutique Banfora");
    const key = m.keys.liveSecret;
    const won = await disputed(gw, key, "10000", "4000");
    assertEquals(await xofCardWallet(gw, key), "5650");
    await announce(gw, won.providerRef, won.caseId, "WON");
    assertEquals(await view(gw, key, won.id), ["RESOLVED", "PROVIDER_WON", "0"]);
    assertEquals(await xofCardWallet(gw, key), "9650");
    assertEquals(await disputeEvents(gw, won.id), ["dispute.opened", "dispute.resolved"]);
    assertEquals(await disputeJournals(gw, won.id), ["DISPUTE_HOLD", "DISPUTE_RELEASE"]);
    await assertLedgerConsistent(gw);

    const lost = await disputed(gw, key, "10000", "3000"); // +9650, 3000 held
    assertEquals(await xofCardWallet(gw, key), "16300");
    await announce(gw, lost.providerRef, lost.caseId, "LOST");
    assertEquals(await view(gw, key, lost.id), ["REJECTED", "PROVIDER_LOST", "0"]);
    assertEquals(await xofCardWallet(gw, key), "16300");
    assertEquals(await disputeEvents(gw, lost.id), ["dispute.opened", "dispute.rejected"]);
    assertEquals(await disputeJournals(gw, lost.id), ["DISPUTE_HOLD", "DISPUTE_DEBIT"]);
    await assertLedgerConsistent(gw);

    const tiered = await disputed(gw, key, "2000", "2000"); // +1930, 2000 held
    assertEquals(await xofCardWallet(gw, key), "16230");
    await announce(gw, tiered.providerRef, tiered.caseId, "ESCALATED");
    assertEquals(await view(gw, key, tiered.id), ["ESCALATED", null, "2000"]);
    assertEquals(await xofCardWallet(gw, key), "16230");
    // Escalated again is the same outcome: refused, nothing moves.
    const again = await post(gw, outcomeBody(tiered, { outcome: "ESCALATED" }));
    assertEquals([again.status, again.json.error.code], [409, "CONFLICT"]);
    // The next tier decides: lost.
    await announce(gw, tiered.providerRef, tiered.caseId, "LOST");
    assertEquals(await view(gw, key, tiered.id), ["REJECTED", "PROVIDER_LOST", "0"]);
    assertEquals(await disputeEvents(gw, tiered.id), [
      "dispute.opened",
      "dispute.escalated",
      "dispute.rejected",
    ]);
    assertEquals(await disputeJournals(gw, tiered.id), ["DISPUTE_HOLD", "DISPUTE_DEBIT"]);
    assertEquals(await xofCardWallet(gw, key), "16230");
    await assertLedgerConsistent(gw);
  }),
);

Deno.test(
  "a replayed or repeated outcome and 20 concurrent copies move the dispute once",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Librairie Dori");
    const key = m.keys.liveSecret;
    const d = await disputed(gw, key, "20000", "5000");
    const raw = outcomeBody(d, { outcome: "WON" });
    const copies = await Promise.all(Array.from({ length: 20 }, () => post(gw, raw)));
    const statuses = copies.map((r) => r.status).sort();
    assertEquals(statuses, [200, ...Array(19).fill(409)]);
    for (const r of copies.filter((c) => c.status === 409)) assertEquals(r.json.error.code, "CONFLICT");
    // The same outcome under a new notification id, and the opposite one: both refused now.
    for (const outcome of ["WON", "LOST", "ESCALATED"]) {
      const late = await post(gw, outcomeBody(d, { outcome }));
      assertEquals([late.status, late.json.error.code], [409, "CONFLICT"], outcome);
    }
    assertEquals(await view(gw, key, d.id), ["RESOLVED", "PROVIDER_WON", "0"]);
    assertEquals(await disputeEvents(gw, d.id), ["dispute.opened", "dispute.resolved"]);
    assertEquals(await disputeJournals(gw, d.id), ["DISPUTE_HOLD", "DISPUTE_RELEASE"]);
    assertEquals(await xofCardWallet(gw, key), "19300");
    await assertLedgerConsistent(gw);
  }),
);

Deno.test(
  "forged, mismatched or unknown outcomes change nothing; one after an operator's decision is refused",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Pharmacie Kaya");
    const key = m.keys.liveSecret;
    const d = await disputed(gw, key, "10000", "4000");
    const forged = await post(gw, outcomeBody(d, {}), "not-the-secret-not-the-secret-not-the");
    assertEquals([forged.status, forged.json.error.code], [400, "INVALID_WEBHOOK_SIGNATURE"]);
    const unsigned = await gw.request("POST", CALLBACK, {
      rawBody: outcomeBody(d, {}),
      headers: { "content-type": "application/json" },
    });
    assertEquals(unsigned.json.error.code, "INVALID_WEBHOOK_SIGNATURE");
    const unknown = await post(gw, outcomeBody(d, { caseId: "case_nobody" }));
    assertEquals([unknown.status, unknown.json.error.code], [404, "NOT_FOUND"]);
    const otherPayin = await post(gw, outcomeBody(d, { reference: "pay_someone_else" }));
    assertEquals([otherPayin.status, otherPayin.json.error.code], [400, "BAD_REQUEST"]);
    const draw = await post(gw, outcomeBody(d, { outcome: "DRAW" }));
    assertEquals([draw.status, draw.json.error.code], [400, "BAD_REQUEST"]);
    const junk = await post(gw, '{"caseId":"\u0000"');
    assertEquals([junk.status, junk.json.error.code], [400, "BAD_REQUEST"]);
    assertEquals(await view(gw, key, d.id), ["OPEN", null, "4000"]);

    // An operator decides first; the acquirer's late outcome is refused and logged, nothing moves.
    const reviewer = await operatorClient(gw, "reviewer");
    const rejected = await reviewer.call("POST", `/admin/api/disputes/${d.id}/reject`, {
      note: "Pas de preuve",
    });
    assertEquals(rejected.status, 200, rejected.text);
    const late = await post(gw, outcomeBody(d, { outcome: "WON" }));
    assertEquals([late.status, late.json.error.code], [400, "INVALID_TRANSACTION_STATUS"]);
    assertEquals(late.json.error.cause, "DISPUTE_ALREADY_DECIDED");
    assertEquals(await view(gw, key, d.id), ["REJECTED", "OPERATOR_REJECTED", "0"]);
    assertEquals(await disputeEvents(gw, d.id), ["dispute.opened", "dispute.rejected"]);
    assertEquals(await disputeJournals(gw, d.id), ["DISPUTE_HOLD", "DISPUTE_DEBIT"]);
    assertEquals(await xofCardWallet(gw, key), "5650");
    await assertLedgerConsistent(gw);
  }, { env: OPERATOR_TEST_ENV }),
);
