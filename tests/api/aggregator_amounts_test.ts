// Issue 26, item 4: what each aggregator reports about the money (the amount paid, its fee when its answer
// carries one, the amount settled) is recorded per pay-in and disbursement, rides with the ledger's journal,
// and an amount or currency other than the one asked is held for an operator, never credited on its word.
import { processDisbursement, sweepDisbursements } from "../../domain/fiat_out/disburse.ts";
import { reconcileFiatPayins } from "../../domain/payins/settle_fiat.ts";
import { assert, assertEquals } from "../assert.ts";
import {
  type AggregatorFixture as Fixture,
  startCinetPayGateway,
  startPayDunyaGateway,
} from "../aggregators/fixture.ts";
import { download, drainExports } from "../export_helpers.ts";
import { parse } from "csv-parse/sync";
import { providerRefOf } from "../refund_fixture.ts";

async function amounts(f: Fixture, kind: "PAYIN" | "DISBURSEMENT", id: string) {
  const rows = await f.gw.db.query<Record<string, string | null>>(
    `SELECT provider, currency, amount_asked::text AS asked, amount_paid::text AS paid, fee::text AS fee,
            amount_settled::text AS settled
       FROM aggregator_amounts WHERE subject_kind = $1 AND subject_id = $2`,
    [kind, id],
  );
  return rows[0] ?? null;
}

/** The settlement journal of a pay-in: each account kind's posting, and the aggregator's figures. */
async function settlement(f: Fixture, payinId: string) {
  const rows = await f.gw.db.query<{ kind: string; amount: string; metadata: Record<string, unknown> }>(
    `SELECT a.kind, e.amount::text AS amount, j.metadata
       FROM journals j JOIN entries e ON e.journal_id = j.id JOIN accounts a ON a.id = e.account_id
      WHERE j.reference = $1 ORDER BY a.kind`,
    [`payin:${payinId}`],
  );
  const postings = Object.fromEntries(rows.map((r) => [r.kind, Number(r.amount)]));
  return { postings, aggregator: rows[0]?.metadata.aggregator ?? null };
}

async function view(f: Fixture, payinId: string) {
  const res = await f.gw.request("GET", `/v1/payments/${payinId}`, { key: f.merchant.keys.liveSecret });
  return res.json.data as { status: string; amount: string; amountReceived: string; serviceFee: string };
}

Deno.test("PayDunya: the customer's fee, the amount paid and settled are recorded; other amounts held", async (t) => {
  const { f, sim, close } = await startPayDunyaGateway();
  // PayDunya's invoice token is the pay-in's provider reference.
  const tokenOf = (payinId: string) => providerRefOf(f.gw, payinId);
  try {
    await t.step(
      "fee paid by the customer on top: credited for the order, PayDunya's fee recorded",
      async () => {
        const p = await f.payin("MOBILE_MONEY", "5000");
        const token = await tokenOf(p.transactionId);
        sim.planInvoice(token, { outcome: "completed", callbacks: "once", customerFee: 150 });
        await sim.pay(token);
        assertEquals(f.answers.at(-1), 200);
        const v = await view(f, p.transactionId);
        // The order received what it asked; the merchant's fee (2 %) is taken from that, not from 5150.
        assertEquals([v.status, v.amount, v.amountReceived, v.serviceFee], [
          "CONFIRMED",
          "5000",
          "5000",
          "100",
        ]);
        assertEquals(await amounts(f, "PAYIN", p.transactionId), {
          provider: "paydunya",
          currency: "XOF",
          asked: "5000",
          paid: "5150",
          fee: "150",
          settled: "5000",
        });
        const s = await settlement(f, p.transactionId);
        // Balanced: the 150 the customer paid PayDunya never reaches the gateway's accounts.
        assertEquals(s.postings, { FEES: 100, WALLET: 4900, WORLD: -5000 });
        assertEquals(s.aggregator, { name: "paydunya", paid: "5150", fee: "150", settled: "5000" });
        assertEquals(await f.credits(p.transactionId), 1);
      },
    );

    await t.step("fee not on the customer: paid recorded, fee and settled not reported (NULL)", async () => {
      const p = await f.payin("CARD", "8000");
      await sim.pay(await tokenOf(p.transactionId));
      assertEquals((await view(f, p.transactionId)).status, "CONFIRMED");
      assertEquals(await amounts(f, "PAYIN", p.transactionId), {
        provider: "paydunya",
        currency: "XOF",
        asked: "8000",
        paid: "8000",
        fee: null,
        settled: null,
      });
    });

    await t.step("PayDunya reports another amount paid: held for an operator, nothing credited", async () => {
      const p = await f.payin("MOBILE_MONEY", "5000");
      const token = await tokenOf(p.transactionId);
      sim.planInvoice(token, { outcome: "completed", callbacks: "once", paidAmount: 4000 });
      await sim.pay(token);
      assertEquals((await view(f, p.transactionId)).status, "AWAITING_PAYMENT");
      assert((await f.held("PAYIN", p.transactionId))?.startsWith("AMOUNT_MISMATCH: paid 4000 XOF for 5000"));
      // Polling reads the same answer: still held, still nothing credited, never UNDERPAID on its word.
      await f.untilPollDue("PAYIN", p.transactionId);
      await reconcileFiatPayins(f.gw.deps, { olderThanMs: 0 });
      assertEquals((await view(f, p.transactionId)).status, "AWAITING_PAYMENT");
      assertEquals(await f.credits(p.transactionId), 0);
      assertEquals(await amounts(f, "PAYIN", p.transactionId), null);
      const held = await f.gw.admin("GET", "/admin/api/provider-statuses/held");
      assert(JSON.stringify(held.json).includes(p.transactionId));
    });

    await t.step(
      "disbursement: the amount PayDunya says it paid is recorded, its fee not reported",
      async () => {
        const id = await f.queue("+22654111111", "2500");
        await processDisbursement(f.gw.deps, id);
        assertEquals((await f.disbursement(id)).status, "SUCCEEDED");
        assertEquals(await amounts(f, "DISBURSEMENT", id), {
          provider: "paydunya-disburse",
          currency: "XOF",
          asked: "2500",
          paid: "2500",
          fee: null,
          settled: null,
        });
      },
    );
    await t.step(
      "the history's CSV export shows what PayDunya reported, beside the order's figures",
      async () => {
        const key = f.merchant.keys.liveSecret;
        const asked = await f.gw.request(
          "GET",
          "/v1/transactions/export?from=2026-11-26T00:00:00.000Z&to=2026-11-26T23:59:59.999Z",
          { key },
        );
        assertEquals(asked.status, 202, asked.text);
        await drainExports(f.gw);
        const { text } = await download(f.gw, key, asked.json.data.jobId);
        const records: Record<string, string>[] = parse(text, { columns: true });
        const withFee = records.filter((r) => r.aggregatorFee !== "");
        assertEquals(withFee.length, 1);
        const r = withFee[0];
        assertEquals(
          [
            r.type,
            r.amount,
            r.amountReceived,
            r.fee,
            r.aggregatorAmountPaid,
            r.aggregatorFee,
            r.aggregatorAmountSettled,
          ],
          ["PAYIN", "5000", "5000", "100", "5150", "150", "5000"],
        );
        const card = records.find((x) => x.type === "PAYIN" && x.amount === "8000")!;
        assertEquals([card.aggregatorAmountPaid, card.aggregatorFee, card.aggregatorAmountSettled], [
          "8000",
          "",
          "",
        ]);
        const held = records.find((x) => x.type === "PAYIN" && x.status === "AWAITING_PAYMENT")!;
        assertEquals(held.aggregatorAmountPaid, "");
      },
    );
  } finally {
    await close();
  }
});

Deno.test("CinetPay: the amount paid is recorded; another amount or currency is held, never credited", async (t) => {
  const { f, sim, close } = await startCinetPayGateway();
  try {
    await t.step("paid as asked: recorded with no fee (CinetPay's check reports none)", async () => {
      const p = await f.payin("CARD", "10000");
      await sim.pay(p.transactionId);
      const v = await view(f, p.transactionId);
      assertEquals([v.status, v.amountReceived, v.serviceFee], ["CONFIRMED", "10000", "350"]);
      assertEquals(await amounts(f, "PAYIN", p.transactionId), {
        provider: "cinetpay",
        currency: "XOF",
        asked: "10000",
        paid: "10000",
        fee: null,
        settled: null,
      });
      const s = await settlement(f, p.transactionId);
      assertEquals(s.postings, { FEES: 350, WALLET: 9650, WORLD: -10000 });
      assertEquals(s.aggregator, { name: "cinetpay", paid: "10000" });
    });

    await t.step("more than asked in the check: held (no OVERPAID on the aggregator's word)", async () => {
      const p = await f.payin("MOBILE_MONEY", "5000");
      sim.planPayin(p.transactionId, { outcome: "ACCEPTED", callbacks: "twice", paidAmount: 6000 });
      const before = f.answers.length;
      await sim.pay(p.transactionId);
      // Both genuine notifications answered without an error: the pay-in is held, not refused.
      assertEquals(f.answers.slice(before), [200, 200]);
      assertEquals((await view(f, p.transactionId)).status, "AWAITING_PAYMENT");
      assert((await f.held("PAYIN", p.transactionId))?.startsWith("AMOUNT_MISMATCH: paid 6000 XOF"));
      assertEquals(await f.credits(p.transactionId), 0);
    });

    await t.step("another currency: held, nothing credited", async () => {
      const p = await f.payin("MOBILE_MONEY", "5000");
      sim.planPayin(p.transactionId, { outcome: "ACCEPTED", callbacks: "none", paidCurrency: "XAF" });
      await sim.pay(p.transactionId);
      await f.untilPollDue("PAYIN", p.transactionId);
      await reconcileFiatPayins(f.gw.deps, { olderThanMs: 0 });
      assertEquals((await view(f, p.transactionId)).status, "AWAITING_PAYMENT");
      assert((await f.held("PAYIN", p.transactionId))?.includes("XAF"));
      assertEquals(await f.credits(p.transactionId), 0);
    });

    await t.step("the operator decides a held pay-in: credited once, for the asked amount", async () => {
      const p = await f.payin("MOBILE_MONEY", "3000");
      sim.planPayin(p.transactionId, { outcome: "ACCEPTED", callbacks: "once", paidAmount: 2999 });
      await sim.pay(p.transactionId);
      assertEquals((await view(f, p.transactionId)).status, "AWAITING_PAYMENT");
      const res = await f.gw.admin("POST", `/admin/api/provider-statuses/held/${p.transactionId}/resolve`, {
        outcome: "SUCCEEDED",
        note: "CinetPay's statement shows 3000 XOF",
      });
      assertEquals(res.status, 200, res.text);
      assertEquals((await view(f, p.transactionId)).status, "CONFIRMED");
      assertEquals(await f.credits(p.transactionId), 1);
    });

    await t.step("transfer: the amount paid is recorded", async () => {
      const id = await f.queue("+22670111111", "2500");
      await processDisbursement(f.gw.deps, id);
      assertEquals((await f.disbursement(id)).status, "SUCCEEDED");
      assertEquals((await amounts(f, "DISBURSEMENT", id))?.paid, "2500");
    });

    await t.step("a transfer CinetPay says it paid for another amount: held, never finished", async () => {
      sim.planTransfer("70888888", "LATE_VAL");
      const id = await f.queue("+22670888888", "2500");
      await processDisbursement(f.gw.deps, id);
      const { reference } = await f.disbursement(id);
      sim.transfer(reference)!.amount = 2400;
      const before = f.answers.length;
      await sim.settleTransfers();
      assertEquals(f.answers.slice(before), [400]);
      assert((await f.held("DISBURSEMENT", id))?.startsWith("AMOUNT_MISMATCH: paid 2400 XOF for 2500"));
      await f.untilPollDue("DISBURSEMENT", id);
      await sweepDisbursements(f.gw.deps, { olderThanMs: 0 });
      const d = await f.disbursement(id);
      assertEquals([d.status, d.finished], ["PENDING", 0]);
      assertEquals(await amounts(f, "DISBURSEMENT", id), null);
    });
  } finally {
    await close();
  }
});
