// PayDunya end to end over HTTP against its simulator: checkout invoices settled by a verified IPN or by
// polling alone, duplicate and forged IPNs, a status nobody knows held, and disbursements that succeed,
// fail, answer late, time out, or meet a crash between PayDunya's answer and our record: paid once.
import { processDisbursement, sweepDisbursements } from "../../domain/fiat_out/disburse.ts";
import { reconcileFiatPayins } from "../../domain/payins/settle_fiat.ts";
import { sha512Hex } from "../../rails/fiat/aggregators/http.ts";
import { openAggregator } from "../../domain/providers/aggregators.ts";
import { assert, assertEquals } from "../assert.ts";
import {
  PAYDUNYA_KEYS,
  startPayDunyaSimulator,
  TEST_WITHDRAW_MODES,
} from "../aggregators/paydunya_simulator.ts";
import { startAggregatorGateway } from "../aggregators/fixture.ts";

Deno.test("PayDunya: invoices and disbursements settle exactly once, whatever the callbacks do", async (t) => {
  const f = await startAggregatorGateway();
  const sim = startPayDunyaSimulator(f.deliver);
  const open = (withdrawModes: Record<string, string>) =>
    openAggregator(
      {
        fiat: {
          ...f.gw.deps.config.fiat,
          provider: "paydunya",
          aggregatorTimeoutMs: 3000,
          paydunya: { ...PAYDUNYA_KEYS, apiUrl: sim.url, storeName: "Boutique Ouaga", withdrawModes },
        },
      },
      f.gw.db,
      { fetch },
    )!;
  const paydunya = open(TEST_WITHDRAW_MODES);
  f.useLive(paydunya);
  const tokenOf = async (payinId: string) =>
    (await f.gw.db.query<{ provider_ref: string }>("SELECT provider_ref FROM payins WHERE id = $1", [
      payinId,
    ]))[0]
      .provider_ref;
  const poll = async (payinId: string) => {
    await f.untilPollDue("PAYIN", payinId);
    await reconcileFiatPayins(f.gw.deps, { olderThanMs: 0 });
  };
  try {
    await t.step("card pay-in: PayDunya's checkout page, IPN with its hash, credited once", async () => {
      const p = await f.payin("CARD");
      await sim.pay(await tokenOf(p.transactionId));
      assertEquals(f.answers.at(-1), 200);
      assertEquals(await f.payinStatus(p.transactionId), "CONFIRMED");
      assertEquals(await f.credits(p.transactionId), 1);
    });

    await t.step("mobile money pay-in, IPN lost: settled by polling alone", async () => {
      const p = await f.payin("MOBILE_MONEY");
      const token = await tokenOf(p.transactionId);
      sim.planInvoice(token, { outcome: "completed", callbacks: "none" });
      await poll(p.transactionId);
      assertEquals(await f.payinStatus(p.transactionId), "AWAITING_PAYMENT");
      await sim.pay(token);
      await poll(p.transactionId);
      assertEquals(await f.payinStatus(p.transactionId), "CONFIRMED");
      assertEquals(await f.credits(p.transactionId), 1);
    });

    await t.step("the same IPN twice: credited once", async () => {
      const p = await f.payin("MOBILE_MONEY");
      const token = await tokenOf(p.transactionId);
      sim.planInvoice(token, { outcome: "completed", callbacks: "twice" });
      const before = f.answers.length;
      await sim.pay(token);
      assertEquals(f.answers.slice(before), [200, 409]);
      assertEquals(await f.credits(p.transactionId), 1);
    });

    await t.step("forged data[hash] refused; the cancelled invoice is then learnt by polling", async () => {
      const p = await f.payin("MOBILE_MONEY");
      const token = await tokenOf(p.transactionId);
      sim.planInvoice(token, { outcome: "cancelled", callbacks: "forged" });
      await sim.pay(token);
      assertEquals(f.answers.at(-1), 400);
      assertEquals(await f.payinStatus(p.transactionId), "AWAITING_PAYMENT");
      await poll(p.transactionId);
      assertEquals(await f.payinStatus(p.transactionId), "FAILED");
      assertEquals(await f.credits(p.transactionId), 0);
    });

    await t.step("an invoice status PayDunya does not document: held, nothing credited", async () => {
      const p = await f.payin("CARD");
      const token = await tokenOf(p.transactionId);
      sim.planInvoice(token, { outcome: "odd", callbacks: "once" });
      await sim.pay(token);
      assertEquals(await f.payinStatus(p.transactionId), "AWAITING_PAYMENT");
      assert((await f.held("PAYIN", p.transactionId))?.includes("odd"));
      assertEquals(await f.credits(p.transactionId), 0);
    });

    await t.step("disbursement Success at once: SUCCEEDED, finished once", async () => {
      const id = await f.queue("+22654111111");
      await processDisbursement(f.gw.deps, id);
      const d = await f.disbursement(id);
      assertEquals([d.status, d.finished], ["SUCCEEDED", 1]);
    });

    await t.step("disbursement Failed: FAILED with PayDunya's words, nothing paid", async () => {
      sim.planDisbursement("70222222", "Failed");
      const id = await f.queue("+22670222222");
      const paid = sim.state.paid;
      await processDisbursement(f.gw.deps, id);
      const d = await f.disbursement(id);
      assertEquals([d.status, d.reason, d.finished], ["FAILED", "Numero invalide", 1]);
      assertEquals(sim.state.paid, paid);
    });

    await t.step("Pending, then Failed by callback (re-queried): FAILED once", async () => {
      sim.planDisbursement("70333333", "LATE_Failed");
      const id = await f.queue("+22670333333");
      await processDisbursement(f.gw.deps, id);
      assertEquals((await f.disbursement(id)).status, "PENDING");
      await sim.settleDisbursements();
      const d = await f.disbursement(id);
      assertEquals([d.status, d.finished], ["FAILED", 1]);
    });

    await t.step("callback lost: the sweep settles it after its backoff", async () => {
      sim.planDisbursement("70555555", "LOST_CALLBACK");
      const id = await f.queue("+22670555555");
      await processDisbursement(f.gw.deps, id);
      await sim.settleDisbursements();
      assertEquals((await f.disbursement(id)).status, "PENDING");
      await f.untilPollDue("DISBURSEMENT", id);
      await sweepDisbursements(f.gw.deps, { olderThanMs: 0 });
      const d = await f.disbursement(id);
      assertEquals([d.status, d.finished], ["SUCCEEDED", 1]);
    });

    await t.step("a disbursement status PayDunya does not document: held", async () => {
      sim.planDisbursement("70666666", "ODD");
      const id = await f.queue("+22670666666");
      await processDisbursement(f.gw.deps, id);
      assertEquals((await f.disbursement(id)).status, "PENDING");
      assert((await f.held("DISBURSEMENT", id))?.includes("Reversed"));
      assertEquals((await f.disbursement(id)).finished, 0);
    });

    await t.step("timeout after submit: asked by its stored token, one invoice, paid once", async () => {
      sim.planDisbursement("70777777", "TIMEOUT");
      const id = await f.queue("+22670777777");
      const [invoices, paid] = [sim.state.invoicesMade, sim.state.paid];
      await processDisbursement(f.gw.deps, id);
      assertEquals((await f.disbursement(id)).status, "SENDING");
      f.clock.advance(31_000);
      await sweepDisbursements(f.gw.deps, { olderThanMs: 0 });
      const d = await f.disbursement(id);
      assertEquals([d.status, d.finished], ["SUCCEEDED", 1]);
      assertEquals([sim.state.invoicesMade - invoices, sim.state.paid - paid], [1, 1]);
    });

    await t.step("crash between PayDunya's answer and our record: one invoice, paid once", async () => {
      const id = await f.queue("+22670999999");
      const crashing = {
        ...paydunya.momoPayout,
        send: async (input: Parameters<typeof paydunya.momoPayout.send>[0]) => {
          await paydunya.momoPayout.send(input);
          throw new Error("process killed");
        },
      };
      const crashed = {
        ...f.gw.deps,
        fiat: { ...f.gw.deps.fiat, live: { ...paydunya, momoPayout: crashing } },
      };
      const [invoices, submits] = [sim.state.invoicesMade, sim.state.submitCalls];
      await processDisbursement(crashed, id).catch(() => {});
      f.clock.advance(31_000);
      await sweepDisbursements(f.gw.deps, { olderThanMs: 0 });
      const d = await f.disbursement(id);
      assertEquals([d.status, d.finished], ["SUCCEEDED", 1]);
      assertEquals([sim.state.invoicesMade - invoices, sim.state.submitCalls - submits], [1, 1]);
    });

    await t.step("aggregator down (HTML 503): pending, then sent once it is back", async () => {
      const id = await f.queue("+22670888888");
      sim.state.down = true;
      await processDisbursement(f.gw.deps, id);
      assertEquals((await f.disbursement(id)).status, "SENDING");
      sim.state.down = false;
      f.clock.advance(31_000);
      await sweepDisbursements(f.gw.deps, { olderThanMs: 0 });
      assertEquals((await f.disbursement(id)).status, "SUCCEEDED");
    });

    await t.step(
      "no withdraw_mode for the operator (Burkina Faso unlisted): refused, nothing paid",
      async () => {
        f.useLive(open({}));
        const id = await f.queue("+22670121212");
        const paid = sim.state.paid;
        await processDisbursement(f.gw.deps, id);
        const d = await f.disbursement(id);
        assertEquals([d.status, d.reason], ["FAILED", "PROVIDER_REFUSED"]);
        assertEquals(sim.state.paid, paid);
        f.useLive(paydunya);
      },
    );

    await t.step("hostile IPNs: NUL bytes, HTML, no hash, unknown token: refused", async () => {
      const form = { "content-type": "application/x-www-form-urlencoded" };
      const send = (body: string, headers: Record<string, string> = form) =>
        f.gw.app.request("/v1/providers/card/callback", { method: "POST", body, headers });
      const hash = "data%5Bhash%5D=" + "0".repeat(128);
      for (
        const res of [
          await send(`${hash}&data[invoice][token]=x\u0000`),
          await send("<html>oops</html>", { "content-type": "text/html" }),
          await send("data[invoice][token]=test_unknown"),
          // A genuine hash (PayDunya's master key) for a token PayDunya does not know: confirm says so.
          await send(
            `data%5Bhash%5D=${await sha512Hex(
              PAYDUNYA_KEYS.masterKey,
            )}&data%5Binvoice%5D%5Btoken%5D=test_unknown`,
          ),
        ]
      ) {
        assertEquals(res.status, 400);
        await res.body?.cancel();
      }
    });
  } finally {
    await sim.close();
    await f.gw.close();
  }
});
