// The evidence deadline: 10 working hours for a local card, 30 for an international one; evidence after
// it is refused, and the dispute-sweep job settles an unanswered dispute against the merchant exactly once
// even when two processes run it at the same moment.
import { manualClock } from "../../domain/clock.ts";
import { sweepDisputes } from "../../domain/disputes/sweep.ts";
import { assertEquals } from "../assert.ts";
import { type TestGateway, withGateway } from "../helpers.ts";
import {
  assertLedgerConsistent,
  disputeEvents,
  disputeJournals,
  paidCardPayin,
  raiseChargeback,
  xofCardWallet,
} from "../dispute_fixture.ts";

// Monday 2 March 2026, 09:00 in Ouagadougou (UTC).
const clock = manualClock(new Date("2026-03-02T09:00:00.000Z"));

async function openOne(gw: TestGateway, key: string, cardOrigin: "LOCAL" | "INTERNATIONAL") {
  const { providerRef, id: payinId } = await paidCardPayin(gw, key, "2000");
  assertEquals((await raiseChargeback(gw, providerRef, { cardOrigin })).status, 200);
  const list = (await gw.request("GET", `/v1/disputes?transactionId=${payinId}`, { key })).json.data;
  return list.items[0];
}

async function evidenceText(gw: TestGateway, key: string, id: string, text: string) {
  const form = new FormData();
  form.append("text", text);
  const res = await gw.app.request(`/v1/disputes/${id}/evidence`, {
    method: "POST",
    headers: { "x-api-key": key },
    body: form,
  });
  return { status: res.status, json: await res.json() };
}

Deno.test(
  "past the deadline: evidence refused, the sweep run twice at once rejects the dispute and debits once",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Boulangerie Ziniaré");
    const key = m.keys.liveSecret;
    await paidCardPayin(gw, key, "10000"); // enough in the wallet for every hold below
    const local = await openOne(gw, key, "LOCAL");
    const abroad = await openOne(gw, key, "INTERNATIONAL");
    const answered = await openOne(gw, key, "LOCAL");
    assertEquals(local.evidenceDueAt, "2026-03-03T09:00:00.000Z");
    assertEquals(abroad.evidenceDueAt, "2026-03-05T09:00:00.000Z");
    assertEquals((await evidenceText(gw, key, answered.id, "Livré.")).status, 200);
    const walletBefore = await xofCardWallet(gw, key);
    // Before the deadline the sweep does nothing.
    assertEquals((await sweepDisputes(gw.deps)).expired, 0);
    clock.set(new Date("2026-03-03T09:00:01.000Z"));
    const late = await evidenceText(gw, key, local.id, "Trop tard");
    assertEquals([late.status, late.json.error.code], [400, "INVALID_TRANSACTION_STATUS"]);
    const runs = await Promise.all([sweepDisputes(gw.deps), sweepDisputes(gw.deps)]);
    assertEquals(runs[0].expired + runs[1].expired, 1);
    assertEquals((await sweepDisputes(gw.deps)).expired, 0);
    const lost = (await gw.request("GET", `/v1/disputes/${local.id}`, { key })).json.data;
    assertEquals([lost.status, lost.outcome, lost.heldAmount], ["REJECTED", "DEADLINE_MISSED", "0"]);
    assertEquals(await disputeEvents(gw, local.id), ["dispute.opened", "dispute.rejected"]);
    assertEquals(await disputeJournals(gw, local.id), ["DISPUTE_HOLD", "DISPUTE_DEBIT"]);
    // The held money had left the wallet already: the debit does not touch it again.
    assertEquals(await xofCardWallet(gw, key), walletBefore);
    // The international one still has two days; the answered one waits for an operator.
    const statuses = async () =>
      (await gw.request("GET", "/v1/disputes", { key })).json.data.items
        .map((d: { id: string; status: string }) => [d.id, d.status]);
    assertEquals(
      (await statuses()).sort(),
      [[local.id, "REJECTED"], [abroad.id, "OPEN"], [answered.id, "UNDER_REVIEW"]].sort(),
    );
    clock.set(new Date("2026-03-05T09:00:01.000Z"));
    const later = await Promise.all([sweepDisputes(gw.deps), sweepDisputes(gw.deps)]);
    assertEquals(later[0].expired + later[1].expired, 1);
    assertEquals(
      (await statuses()).sort(),
      [[local.id, "REJECTED"], [abroad.id, "REJECTED"], [answered.id, "UNDER_REVIEW"]].sort(),
    );
    await assertLedgerConsistent(gw);
  }, { clock }),
);
