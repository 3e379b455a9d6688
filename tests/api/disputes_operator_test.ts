// Operators decide disputes: resolve (hold released exactly once), reject (held amount debited exactly
// once), escalate (the hold stays); a note always, reviewer or above, each decision in the audit trail,
// open disputes counted in the queue; an operator opens one on a mobile money complaint.
import { assert, assertEquals } from "../assert.ts";
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

async function openOne(gw: TestGateway, key: string, amount: string, disputed: string) {
  const { providerRef } = await paidCardPayin(gw, key, amount);
  const raised = await raiseChargeback(gw, providerRef, { amount: disputed });
  assertEquals(raised.status, 200);
  const list = (await gw.request("GET", "/v1/disputes?status=OPEN", { key })).json.data;
  return list.items[0].id as string;
}

Deno.test(
  "resolve for the merchant: the hold comes back once; 50 concurrent decisions move it once",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Quincaillerie Fada");
    const key = m.keys.liveSecret;
    const id = await openOne(gw, key, "10000", "4000");
    assertEquals(await xofCardWallet(gw, key), "5650");
    await assertLedgerConsistent(gw);
    const reviewer = await operatorClient(gw, "reviewer");
    const viewer = await operatorClient(gw, "viewer");
    // A viewer reads but may not decide; no note, no decision.
    assertEquals((await viewer.call("GET", `/admin/api/disputes/${id}`)).json.data.status, "OPEN");
    assertEquals(
      (await viewer.call("POST", `/admin/api/disputes/${id}/resolve`, { note: "ok" })).status,
      403,
    );
    const noNote = await reviewer.call("POST", `/admin/api/disputes/${id}/resolve`, { note: "  " });
    assertEquals([noNote.status, noNote.json.error.code], [400, "REASON_NOTE_REQUIRED"]);
    const queue = (await reviewer.call("GET", "/admin/api/queue")).json.data;
    assertEquals(queue.counts.disputesOpen, 1);
    const answers = await Promise.all(
      Array.from(
        { length: 50 },
        () =>
          reviewer.call("POST", `/admin/api/disputes/${id}/resolve`, { note: "Preuve de livraison valable" }),
      ),
    );
    assertEquals(answers.filter((a) => a.status === 200).length, 1);
    for (const a of answers.filter((a) => a.status !== 200)) {
      assertEquals(a.json.error.code, "INVALID_TRANSACTION_STATUS");
    }
    const d = (await gw.request("GET", `/v1/disputes/${id}`, { key })).json.data;
    assertEquals([d.status, d.outcome, d.heldAmount, d.decisionNote], [
      "RESOLVED",
      "MERCHANT_WON",
      "0",
      "Preuve de livraison valable",
    ]);
    assertEquals(await xofCardWallet(gw, key), "9650");
    assertEquals(await disputeEvents(gw, id), ["dispute.opened", "dispute.resolved"]);
    assertEquals(await disputeJournals(gw, id), ["DISPUTE_HOLD", "DISPUTE_RELEASE"]);
    // Decided: no second decision, no merchant move; the trail has exactly one record of it.
    const again = await reviewer.call("POST", `/admin/api/disputes/${id}/reject`, { note: "non" });
    assertEquals(again.json.error.code, "INVALID_TRANSACTION_STATUS");
    assertEquals((await gw.request("POST", `/v1/disputes/${id}/accept`, { key })).status, 400);
    const trail = (await gw.admin("GET", `/admin/api/audit?itemId=${id}`)).json.data.items;
    assertEquals(trail.map((r: { action: string }) => r.action), ["dispute.resolve"]);
    assertEquals(trail[0].actor.label, reviewer.operator.email);
    assertEquals((await reviewer.call("GET", "/admin/api/queue")).json.data.counts.disputesOpen, 0);
    await assertLedgerConsistent(gw);
  }, { env: OPERATOR_TEST_ENV }),
);

Deno.test(
  "escalate keeps the hold; reject then debits it once, and the shortfall is collected from later credits",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Cyber Gaoua");
    const key = m.keys.liveSecret;
    const id = await openOne(gw, key, "10000", "10000"); // 9650 held, 350 short
    const escalated = await gw.admin("POST", `/admin/api/disputes/${id}/escalate`, { note: "Niveau 2" });
    assertEquals([escalated.status, escalated.json.data.status], [200, "ESCALATED"]);
    assertEquals(escalated.json.data.heldAmount, "9650");
    await assertLedgerConsistent(gw);
    assertEquals((await gw.admin("POST", `/admin/api/disputes/${id}/escalate`, { note: "x" })).status, 400);
    const rejected = await gw.admin("POST", `/admin/api/disputes/${id}/reject`, { note: "Fraude avérée" });
    assertEquals(rejected.status, 200, rejected.text);
    assertEquals(
      [
        rejected.json.data.status,
        rejected.json.data.outcome,
        rejected.json.data.heldAmount,
        rejected.json.data.shortfall,
      ],
      ["REJECTED", "OPERATOR_REJECTED", "0", "350"],
    );
    assertEquals(await xofCardWallet(gw, key), "0");
    await assertLedgerConsistent(gw);
    // The next pay-in's credit pays the 350 still owed, once, whoever sweeps.
    await paidCardPayin(gw, key, "1000");
    const { sweepDisputes } = await import("../../domain/disputes/sweep.ts");
    const runs = await Promise.all([sweepDisputes(gw.deps), sweepDisputes(gw.deps)]);
    assertEquals(runs[0].collected + runs[1].collected, 1);
    assertEquals(await xofCardWallet(gw, key), "615");
    const d = (await gw.request("GET", `/v1/disputes/${id}`, { key })).json.data;
    assertEquals(d.shortfall, "0");
    assertEquals(await disputeEvents(gw, id), ["dispute.opened", "dispute.escalated", "dispute.rejected"]);
    assertEquals(await disputeJournals(gw, id), ["DISPUTE_HOLD", "DISPUTE_DEBIT", "DISPUTE_COLLECT"]);
    const trail = (await gw.admin("GET", `/admin/api/audit?itemId=${id}`)).json.data.items;
    assertEquals(trail.map((r: { action: string }) => r.action), ["dispute.escalate", "dispute.reject"]);
    await assertLedgerConsistent(gw);
  }, { env: OPERATOR_TEST_ENV }),
);

Deno.test(
  "an operator opens a dispute on a mobile money complaint; unpaid pay-ins and bad input are refused",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Maquis Tenkodogo");
    const key = m.keys.liveSecret;
    const momo = await gw.request("POST", "/v1/payments", {
      key,
      body: { amount: "5000", paymentMethod: "MOBILE_MONEY", customerPhone: "+22670123456" },
    });
    const payinId = momo.json.data.transactionId;
    const early = await gw.admin("POST", "/admin/api/disputes", {
      transactionId: payinId,
      reason: "NOT_RECEIVED",
      note: "Plainte du client",
    });
    assertEquals(early.json.error.code, "INVALID_TRANSACTION_STATUS"); // not paid yet
    await gw.simulators.flush();
    const reviewer = await operatorClient(gw, "reviewer");
    const noNote = await reviewer.call("POST", "/admin/api/disputes", {
      transactionId: payinId,
      reason: "NOT_RECEIVED",
    });
    assertEquals(noNote.json.error.code, "REASON_NOTE_REQUIRED");
    for (
      const bad of [
        { transactionId: payinId, reason: "lower case", note: "x" },
        { transactionId: payinId, reason: "NOT_RECEIVED", note: "x", amount: "-1" },
        { transactionId: payinId, reason: "NOT_RECEIVED", note: "x", amount: 5 },
        { transactionId: payinId, reason: "NOT_RECEIVED", note: "x", extra: true },
        { transactionId: "\u0000", reason: "NOT_RECEIVED", note: "x" },
      ]
    ) {
      assertEquals(
        (await reviewer.call("POST", "/admin/api/disputes", bad)).status,
        400,
        JSON.stringify(bad),
      );
    }
    const tooMuch = await reviewer.call("POST", "/admin/api/disputes", {
      transactionId: payinId,
      reason: "NOT_RECEIVED",
      note: "x",
      amount: "5001",
    });
    assertEquals(tooMuch.json.error.code, "INVALID_AMOUNT");
    const opened = await reviewer.call("POST", "/admin/api/disputes", {
      transactionId: payinId,
      reason: "NOT_RECEIVED",
      note: "Le client dit n'avoir rien reçu",
    });
    assertEquals(opened.status, 201, opened.text);
    const d = opened.json.data;
    assertEquals([d.source, d.status, d.amount, d.heldAmount, d.shortfall, d.merchantId], [
      "OPERATOR",
      "OPEN",
      "5000",
      "4900",
      "100",
      m.merchantId,
    ]);
    const second = await reviewer.call("POST", "/admin/api/disputes", {
      transactionId: payinId,
      reason: "NOT_RECEIVED",
      note: "encore",
    });
    assertEquals(second.json.error.code, "INVALID_STATE");
    const all = (await gw.admin("GET", "/admin/api/disputes?status=OPEN")).json.data.items;
    assertEquals(all.map((x: { id: string }) => x.id), [d.id]);
    const trail = (await gw.admin("GET", `/admin/api/audit?itemId=${d.id}`)).json.data.items;
    assertEquals(trail.map((r: { action: string }) => r.action), ["dispute.open"]);
    assert((await gw.admin("GET", "/admin/api/disputes/dsp_nope")).status === 404);
    await assertLedgerConsistent(gw);
  }, { env: OPERATOR_TEST_ENV }),
);
