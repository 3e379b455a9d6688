// Live aggregators from an operator's chair (issue 26): an XOF withdrawal paid through CinetPay's
// simulator and a bulk mobile money batch through PayDunya's, over the public API, a status CinetPay answers that the gateway does not know held and then
// settled once by an operator (even with 20 decisions at once), a two-minute outage seen in /health and
// /metrics after which polling settles everything once. Time moves on the manual clock, never by waiting.
import { findSystemAccount } from "../../db/ledger.ts";
import { manualClock } from "../../domain/clock.ts";
import { processDisbursement, sweepDisbursements } from "../../domain/fiat_out/disburse.ts";
import { Decimal } from "../../domain/money.ts";
import { reconcileFiatPayins } from "../../domain/payins/settle_fiat.ts";
import { createCinetPay } from "../../rails/fiat/cinetpay/mod.ts";
import { assert, assertEquals } from "../assert.ts";
import { CINETPAY_CREDENTIALS, startCinetPaySimulator } from "../aggregators/cinetpay_simulator.ts";
import { deliverTo } from "../aggregators/sim_server.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { creditWallet, idem } from "../money_out_helpers.ts";
import { batchOf, createBatch, csvOf, upload } from "../bulk_helpers.ts";
import { advanceBatch } from "../../domain/bulk/run.ts";
import { openAggregator } from "../../domain/providers/aggregators.ts";
import {
  PAYDUNYA_KEYS,
  startPayDunyaSimulator,
  TEST_WITHDRAW_MODES,
} from "../aggregators/paydunya_simulator.ts";

const HEADER = ["phoneNumber", "amount", "recipientName", "reference"];
import { OPERATOR_TEST_ENV, operatorClient } from "../operator_helpers.ts";

async function inFlight(gw: TestGateway): Promise<string> {
  const account = await findSystemAccount(gw.db, "IN_FLIGHT", false, "MOMO");
  const rows = await gw.db.query<{ s: string }>(
    "SELECT COALESCE(sum(amount), 0)::text AS s FROM entries WHERE account_id = $1",
    [account.id],
  );
  return new Decimal(rows[0].s).toFixed(0);
}

Deno.test("CinetPay live: withdrawal, held status decided by an operator once, outage then settled", async (t) => {
  const clock = manualClock(new Date("2026-11-26T08:00:00Z"));
  const gw = await startTestGateway({ clock, env: OPERATOR_TEST_ENV });
  const { deliver, answers } = deliverTo(gw.app);
  const sim = startCinetPaySimulator(deliver);
  gw.deps.fiat.live = createCinetPay({
    ...CINETPAY_CREDENTIALS,
    apiUrl: sim.url,
    transferUrl: sim.url,
    fetch,
    timeoutMs: 3000,
    now: () => clock.now().getTime(),
  });
  try {
    const m = await gw.createMerchant("Boutique Ouaga", "APPROVED");
    const key = m.keys.liveSecret;
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { rateLimits: { default: 10_000 } });
    await creditWallet(gw, m.merchantId, false, "MOMO", "200000");
    const destination = async (phone: string) => {
      const res = await gw.request("POST", "/v1/merchants/fiat-destinations", {
        key,
        body: { kind: "MOMO", momoOperator: "OPERATOR_B_BF", momoPhone: phone },
      });
      assertEquals(res.status, 201, res.text);
      return res.json.data.id as string;
    };
    const plain = await destination("+22670123456");
    const odd = await destination("+22670111111");
    const late = await destination("+22670222222");
    sim.planTransfer("70111111", "ODD");
    clock.advance(24 * 3600_000 + 1000); // new destinations' cooldown
    /** Asks for a withdrawal, has an operator approve it, runs the fiat.disburse job once. */
    const withdraw = async (fiatDestinationId: string, amount = "20000") => {
      const res = await gw.request("POST", "/v1/withdrawals", {
        key,
        headers: idem(),
        body: { amount, currency: "XOF", rail: "MOMO", fiatDestinationId },
      });
      assertEquals(res.status, 201, res.text);
      const id = res.json.data.id as string;
      const ok = await gw.admin("POST", `/admin/api/review/${id}/approve`, { reviewer: "awa" });
      assertEquals(ok.status, 200, ok.text);
      for (const e of gw.enqueued.splice(0)) {
        if (e.message.type === "fiat.disburse") await processDisbursement(gw.deps, e.message.disbursementId);
      }
      return id;
    };
    const withdrawal = async (id: string) =>
      (await gw.request("GET", `/v1/withdrawals/${id}`, { key })).json.data;
    const disbursementOf = async (withdrawalId: string) =>
      (await gw.db.query<{ id: string }>(
        "SELECT id FROM fiat_disbursements WHERE reference = $1",
        [`withdrawal:${withdrawalId}`],
      ))[0].id;
    const held = async () => (await gw.admin("GET", "/admin/api/provider-statuses/held")).json.data.items;
    const queueCount = async () =>
      (await gw.admin("GET", "/admin/api/queue")).json.data.counts.providerStatusesHeld;

    await t.step("XOF withdrawal over the API: CinetPay pays it once, CONFIRMED, ledger exact", async () => {
      const made = sim.state.transfersMade;
      const id = await withdraw(plain);
      const w = await withdrawal(id);
      assertEquals([w.status, w.netAmount], ["CONFIRMED", "19500"]);
      assertEquals(sim.transfer(`withdrawal:${id}`)?.amount, 19500);
      assertEquals(sim.state.transfersMade - made, 1);
      assertEquals(await inFlight(gw), "0");
      assertEquals(await held(), []);
    });

    let heldWithdrawal = "";
    let heldDisbursement = "";
    await t.step(
      "a status CinetPay answers that nobody knows: held, listed, counted, nothing moved",
      async () => {
        heldWithdrawal = await withdraw(odd, "10000");
        heldDisbursement = await disbursementOf(heldWithdrawal);
        assertEquals((await withdrawal(heldWithdrawal)).status, "APPROVED");
        const items = await held();
        assertEquals(items.length, 1);
        assertEquals(
          [items[0].subjectKind, items[0].id, items[0].provider, items[0].merchantId, items[0].amount],
          ["DISBURSEMENT", heldDisbursement, "cinetpay-transfer", m.merchantId, "9500"],
        );
        assert(items[0].heldStatus.includes("XYZ"), items[0].heldStatus);
        assertEquals(await queueCount(), 1);
        const health = await (await gw.app.request("/health")).json();
        assertEquals(health.aggregators[0].heldStatuses, 1);
        assertEquals(await inFlight(gw), "10000");
      },
    );

    await t.step(
      "bad decisions refused: no note, blank note, wrong outcome, unknown id, viewer",
      async () => {
        const path = `/admin/api/provider-statuses/held/${heldDisbursement}/resolve`;
        const cases: Array<[string, unknown, number, string]> = [
          [path, { outcome: "SUCCEEDED" }, 400, "VALIDATION_ERROR"],
          [path, { outcome: "SUCCEEDED", note: "   " }, 400, "REASON_NOTE_REQUIRED"],
          [path, { outcome: "PAID", note: "x" }, 400, "VALIDATION_ERROR"],
          [path, { outcome: "SUCCEEDED", note: "x\u0000", extra: 1 }, 400, "VALIDATION_ERROR"],
          [path, { outcome: "SUCCEEDED", note: "x".repeat(5000) }, 400, "VALIDATION_ERROR"],
          [
            `/admin/api/provider-statuses/held/fdis_${"0".repeat(26)}/resolve`,
            { outcome: "FAILED", note: "x" },
            404,
            "NOT_FOUND",
          ],
          [
            "/admin/api/provider-statuses/held/garbage%00/resolve",
            { outcome: "FAILED", note: "x" },
            404,
            "NOT_FOUND",
          ],
        ];
        for (const [p, body, status, code] of cases) {
          const res = await gw.admin("POST", p, body);
          assertEquals(
            [res.status, res.json?.error?.code],
            [status, code],
            `${JSON.stringify(body)} ${res.text}`,
          );
        }
        const viewer = await operatorClient(gw, "viewer");
        const res = await viewer.call("POST", path, { outcome: "SUCCEEDED", note: "seen in back office" });
        assertEquals(res.status, 403, res.text);
        assertEquals((await held()).length, 1);
        assertEquals((await withdrawal(heldWithdrawal)).status, "APPROVED");
      },
    );

    await t.step(
      "20 operators decide at once: settled once, audited once, a later poll moves nothing",
      async () => {
        const reviewer = await operatorClient(gw, "reviewer");
        const path = `/admin/api/provider-statuses/held/${heldDisbursement}/resolve`;
        const body = { outcome: "SUCCEEDED", note: "CinetPay back office: transfer VAL on 26/11" };
        const results = await Promise.all(
          Array.from({ length: 20 }, () => reviewer.call("POST", path, body)),
        );
        const statuses = results.map((r) => r.status);
        assertEquals(statuses.filter((s) => s === 200).length, 1, statuses.join());
        assert(
          results.every((r) => r.status === 200 || r.json.error.code === "INVALID_STATE"),
          statuses.join(),
        );
        const won = results.find((r) => r.status === 200)!.json.data;
        assertEquals([won.subjectKind, won.outcome, won.status], ["DISBURSEMENT", "SUCCEEDED", "SUCCEEDED"]);
        assertEquals((await withdrawal(heldWithdrawal)).status, "CONFIRMED");
        assertEquals(await inFlight(gw), "0");
        const audit = await gw.db.query(
          "SELECT 1 FROM audit_records WHERE action = 'provider_status.resolve' AND item_id = $1",
          [heldDisbursement],
        );
        assertEquals(audit.length, 1);
        assertEquals(await held(), []);
        assertEquals(await queueCount(), 0);
        // CinetPay still answers its odd status: neither a job step nor the sweep moves the money again.
        clock.advance(3600_000);
        assertEquals(await processDisbursement(gw.deps, heldDisbursement, { force: true }), "final");
        await sweepDisbursements(gw.deps, { olderThanMs: 0 });
        assertEquals((await withdrawal(heldWithdrawal)).status, "CONFIRMED");
        assertEquals(await inFlight(gw), "0");
      },
    );

    await t.step("a held pay-in decided FAILED: failed once, never credited", async () => {
      const res = await gw.request("POST", "/v1/payments", {
        key,
        body: { amount: "5000", paymentMethod: "MOBILE_MONEY", customerPhone: "+22670123456" },
      });
      assertEquals(res.status, 201, res.text);
      const id = res.json.data.transactionId as string;
      sim.planPayin(id, { outcome: "ODD", callbacks: "none" });
      await sim.pay(id);
      await reconcileFiatPayins(gw.deps, { olderThanMs: 0 });
      assertEquals((await held()).map((h: { id: string }) => h.id), [id]);
      const decide = (outcome: string) =>
        gw.admin("POST", `/admin/api/provider-statuses/held/${id}/resolve`, { outcome, note: "refusé" });
      const first = await decide("FAILED");
      assertEquals([first.status, first.json.data.status], [200, "FAILED"], first.text);
      assertEquals((await decide("SUCCEEDED")).json.error.code, "INVALID_STATE");
      const journals = await gw.db.query("SELECT 1 FROM journals WHERE reference = $1", [`payin:${id}`]);
      assertEquals(journals.length, 0);
      assertEquals((await gw.request("GET", `/v1/payments/${id}`, { key })).json.data.status, "FAILED");
    });

    await t.step(
      "CinetPay down for two minutes: degraded, nothing moved; then polling settles once",
      async () => {
        const res = await gw.request("POST", "/v1/payments", {
          key,
          body: { amount: "7000", paymentMethod: "MOBILE_MONEY", customerPhone: "+22670123456" },
        });
        const payin = res.json.data.transactionId as string;
        sim.planPayin(payin, { outcome: "ACCEPTED", callbacks: "none" });
        sim.planTransfer("70222222", "LATE_VAL");
        const madeBefore = sim.state.transfersMade;
        sim.state.down = true;
        await sim.pay(payin); // the customer paid at CinetPay; no callback ever comes
        const outage = await withdraw(late, "15000"); // the send gets an HTML 503: no answer
        assertEquals((await withdrawal(outage)).status, "APPROVED");
        const health = await gw.app.request("/health");
        const h = await health.json();
        assertEquals([health.status, h.status, h.database], [200, "degraded", "ok"]);
        assertEquals(h.aggregators.map((a: { name: string; status: string }) => [a.name, a.status]), [
          ["cinetpay", "unreachable"],
        ]);
        const metrics = await (await gw.admin("GET", "/metrics")).text;
        assert(metrics.includes('gateway_aggregator_up{aggregator="cinetpay"} 0'), metrics);
        assert(/gateway_aggregator_failures_total\{aggregator="cinetpay",call="[^"]+"\} [1-9]/.test(metrics));
        for (let s = 0; s < 120; s += 20) {
          clock.advance(20_000);
          await reconcileFiatPayins(gw.deps, { olderThanMs: 0 });
          await sweepDisbursements(gw.deps, { olderThanMs: 0 });
        }
        assertEquals(
          (await gw.request("GET", `/v1/payments/${payin}`, { key })).json.data.status,
          "AWAITING_PAYMENT",
        );
        assertEquals(sim.state.transfersMade, madeBefore);

        sim.state.down = false;
        for (let i = 0; i < 10; i++) {
          clock.advance(60_000);
          await reconcileFiatPayins(gw.deps, { olderThanMs: 0 });
          await sweepDisbursements(gw.deps, { olderThanMs: 0 });
          if (i === 2) await sim.settleTransfers(); // CinetPay finishes the transfer and notifies
        }
        assertEquals(
          (await gw.request("GET", `/v1/payments/${payin}`, { key })).json.data.status,
          "CONFIRMED",
        );
        const credits = await gw.db.query("SELECT 1 FROM journals WHERE reference = $1", [`payin:${payin}`]);
        assertEquals(credits.length, 1);
        assertEquals((await withdrawal(outage)).status, "CONFIRMED");
        assertEquals(sim.state.transfersMade - madeBefore, 1);
        assertEquals(await inFlight(gw), "0");
        assert(answers.every((a) => a === 200 || a === 409), answers.join());
        const after = await (await gw.app.request("/health")).json();
        assertEquals([after.status, after.aggregators[0].status], ["ok", "ok"]);
        const text = await (await gw.admin("GET", "/metrics")).text;
        assert(text.includes('gateway_aggregator_up{aggregator="cinetpay"} 1'));
        assert(
          /gateway_aggregator_request_duration_seconds_bucket\{aggregator="cinetpay",call="\/v2\/payment\/check",le="\+Inf"\} [1-9]/
            .test(text),
          text,
        );
        assert(
          /gateway_aggregator_last_success_timestamp_seconds\{aggregator="cinetpay",call="\/v2\/payment\/check"\} \d+/
            .test(text),
        );
        assertEquals(text.match(/gateway_aggregator_held_statuses\{aggregator="cinetpay"\} (\d+)/)?.[1], "0");
      },
    );
  } finally {
    await sim.close();
    await gw.close();
  }
});

Deno.test("PayDunya live: a bulk mobile money batch over the API, each number paid once", async () => {
  const clock = manualClock(new Date("2026-11-26T08:00:00Z"));
  const gw = await startTestGateway({ clock });
  const { deliver, answers } = deliverTo(gw.app);
  const sim = startPayDunyaSimulator(deliver);
  gw.deps.fiat.live = openAggregator(
    {
      fiat: {
        ...gw.deps.config.fiat,
        provider: "paydunya",
        aggregatorTimeoutMs: 3000,
        paydunya: {
          ...PAYDUNYA_KEYS,
          apiUrl: sim.url,
          storeName: "Boutique Ouaga",
          withdrawModes: TEST_WITHDRAW_MODES,
        },
      },
    },
    gw.db,
    { fetch, now: () => clock.now().getTime() },
  )!;
  try {
    const m = await gw.createMerchant("Paie Ouaga", "APPROVED");
    const key = m.keys.liveSecret;
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { rateLimits: { default: 10_000 } });
    await creditWallet(gw, m.merchantId, false, "MOMO", "100000");
    // Orange (66...) and Moov (70...) numbers; one refused by PayDunya, one paid late with its IPN lost.
    const phones = ["+22666000001", "+22670000002", "+22666000003", "+22670000004", "+22670000005"];
    sim.planDisbursement("70000004", "Failed");
    sim.planDisbursement("70000005", "LOST_CALLBACK");
    const id = await createBatch(gw, key, "MOBILE_MONEY");
    const rows = phones.map((p, i) => [p, String(1000 * (i + 1)), `Agent ${i + 1}`, `nov-${i + 1}`]);
    const imported = await upload(gw, key, id, csvOf([HEADER, ...rows]), "agents.csv", "text/csv");
    assertEquals(imported.status, 200, imported.text);
    const valid = await gw.request("POST", `/v1/bulk-payments/${id}/validate`, { key });
    assertEquals(valid.json.data.balanceCheck.sufficient, true, valid.text);
    const exec = await gw.request("POST", `/v1/bulk-payments/${id}/execute`, { key, headers: idem() });
    assertEquals(exec.status, 202, exec.text);
    if (exec.json.data.status === "PENDING_REVIEW") {
      const ok = await gw.admin("POST", `/admin/api/bulk-review/${id}/approve`, { reviewer: "ops-awa" });
      assertEquals(ok.status, 200, ok.text);
    }
    await advanceBatch(gw.deps, id);
    for (const e of gw.enqueued.splice(0)) {
      if (e.message.type === "fiat.disburse") await processDisbursement(gw.deps, e.message.disbursementId);
    }
    assertEquals(sim.state.paid, 3);
    await sim.settleDisbursements(); // the late one succeeds at PayDunya; its IPN never comes
    for (let i = 0; i < 5; i++) {
      clock.advance(120_000);
      await sweepDisbursements(gw.deps, { olderThanMs: 0 });
      await advanceBatch(gw.deps, id);
    }
    const batch = await batchOf(gw, key, id);
    assertEquals([batch.status, batch.counts.succeeded, batch.counts.failed], ["PARTIALLY_COMPLETED", 4, 1]);
    const failed = batch.items.filter((i: { status: string }) => i.status === "FAILED");
    assertEquals(failed.map((i: { walletAddress: string }) => i.walletAddress), ["+22670000004"]);
    assertEquals(sim.state.paid, 4);
    // Each number was submitted to PayDunya once, the refused one's money came back, nothing is in flight.
    assertEquals(sim.state.submitCalls, 5);
    assertEquals(await inFlight(gw), "0");
    assert(answers.every((a) => a === 200), answers.join());
  } finally {
    await sim.close();
    await gw.close();
  }
});
