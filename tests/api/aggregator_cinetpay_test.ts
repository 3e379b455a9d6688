// CinetPay end to end over HTTP against its simulator: pay-ins settled by a verified callback or by polling
// alone, duplicate and forged callbacks, a status nobody knows held, and transfers that succeed, fail,
// answer late, time out, or meet a crash between CinetPay's answer and our record: paid once every time.
import { processDisbursement, sweepDisbursements } from "../../domain/fiat_out/disburse.ts";
import { reconcileFiatPayins } from "../../domain/payins/settle_fiat.ts";
import { notificationToken } from "../../rails/fiat/cinetpay/collect.ts";
import { createCinetPay } from "../../rails/fiat/cinetpay/mod.ts";
import { assert, assertEquals } from "../assert.ts";
import { CINETPAY_CREDENTIALS, startCinetPaySimulator } from "../aggregators/cinetpay_simulator.ts";
import { startAggregatorGateway } from "../aggregators/fixture.ts";

Deno.test("CinetPay: pay-ins and transfers settle exactly once, whatever the callbacks do", async (t) => {
  const f = await startAggregatorGateway();
  const sim = startCinetPaySimulator(f.deliver);
  const cinetpay = createCinetPay({
    ...CINETPAY_CREDENTIALS,
    apiUrl: sim.url,
    transferUrl: sim.url,
    fetch,
    timeoutMs: 3000,
  });
  f.useLive(cinetpay);
  /** One reconciliation tick once the pay-in's next poll is due (its backoff, read from the table). */
  const poll = async (payinId: string) => {
    await f.untilPollDue("PAYIN", payinId);
    await reconcileFiatPayins(f.gw.deps, { olderThanMs: 0 });
  };
  try {
    await t.step("CinetPay's GET ping of a notify_url answers 200 and moves nothing", async () => {
      for (const path of ["/v1/providers/momo/callback", "/v1/providers/momo/disbursement-callback"]) {
        const res = await f.gw.request("GET", path);
        assertEquals([res.status, res.json.data], [200, { ok: true }]);
      }
    });

    await t.step("card pay-in: CinetPay's hosted page, signed callback, credited once", async () => {
      const p = await f.payin("CARD");
      assertEquals(p.status, "AWAITING_PAYMENT");
      await sim.pay(p.transactionId);
      assertEquals(f.answers.at(-1), 200);
      assertEquals(await f.payinStatus(p.transactionId), "CONFIRMED");
      assertEquals(await f.credits(p.transactionId), 1);
    });

    await t.step("mobile money pay-in, callback lost: settled by polling alone", async () => {
      const p = await f.payin("MOBILE_MONEY");
      sim.planPayin(p.transactionId, { outcome: "ACCEPTED", callbacks: "none" });
      await poll(p.transactionId); // still waiting for the customer: nothing moves
      assertEquals(await f.payinStatus(p.transactionId), "AWAITING_PAYMENT");
      await sim.pay(p.transactionId);
      assertEquals(await f.payinStatus(p.transactionId), "AWAITING_PAYMENT");
      await poll(p.transactionId);
      assertEquals(await f.payinStatus(p.transactionId), "CONFIRMED");
      await poll(p.transactionId);
      assertEquals(await f.credits(p.transactionId), 1);
    });

    await t.step("the same callback twice: credited once, the second answers CONFLICT", async () => {
      const p = await f.payin("MOBILE_MONEY");
      sim.planPayin(p.transactionId, { outcome: "ACCEPTED", callbacks: "twice" });
      const before = f.answers.length;
      await sim.pay(p.transactionId);
      assertEquals(f.answers.slice(before), [200, 409]);
      assertEquals(await f.credits(p.transactionId), 1);
    });

    await t.step("50 concurrent copies of one genuine notification: credited once, never a 500", async () => {
      const p = await f.payin("MOBILE_MONEY");
      sim.planPayin(p.transactionId, { outcome: "ACCEPTED", callbacks: "none" });
      await sim.pay(p.transactionId);
      const fields = new URLSearchParams({
        cpm_site_id: CINETPAY_CREDENTIALS.siteId,
        cpm_trans_id: p.transactionId,
        cpm_amount: "5000",
        cpm_currency: "XOF",
      });
      const headers = {
        "content-type": "application/x-www-form-urlencoded",
        "x-token": await notificationToken(CINETPAY_CREDENTIALS.secretKey, fields),
      };
      const statuses = await Promise.all(
        Array.from({ length: 50 }, async () => {
          const res = await f.gw.app.request("/v1/providers/momo/callback", {
            method: "POST",
            headers,
            body: fields.toString(),
          });
          await res.body?.cancel();
          return res.status;
        }),
      );
      assert(statuses.every((s) => s === 200 || s === 409), statuses.join(","));
      assert(statuses.includes(200));
      assertEquals(await f.credits(p.transactionId), 1);
      assertEquals(await f.payinStatus(p.transactionId), "CONFIRMED");
    });

    await t.step("forged x-token refused, nothing moves; polling then learns the truth", async () => {
      const p = await f.payin("MOBILE_MONEY");
      sim.planPayin(p.transactionId, { outcome: "REFUSED", callbacks: "forged" });
      await sim.pay(p.transactionId);
      assertEquals(f.answers.at(-1), 400); // INVALID_WEBHOOK_SIGNATURE
      assertEquals(await f.payinStatus(p.transactionId), "AWAITING_PAYMENT");
      await poll(p.transactionId);
      assertEquals(await f.payinStatus(p.transactionId), "FAILED");
      assertEquals(await f.credits(p.transactionId), 0);
    });

    await t.step("hostile callbacks: NUL bytes, HTML, unknown reference, no token: refused", async () => {
      const send = (body: string, headers: Record<string, string>) =>
        f.gw.app.request("/v1/providers/momo/callback", { method: "POST", body, headers });
      const form = { "content-type": "application/x-www-form-urlencoded" };
      for (
        const [body, headers] of [
          ["cpm_trans_id=pay_x\u0000&cpm_site_id=445160", { ...form, "x-token": "a".repeat(64) }],
          ["<html>oops</html>", { "content-type": "text/html", "x-token": "b".repeat(64) }],
          ["cpm_trans_id=pay_unknown&cpm_site_id=445160", form],
        ] as const
      ) {
        const res = await send(body, headers);
        assertEquals(res.status, 400, body);
        await res.body?.cancel();
      }
    });

    await t.step("a status CinetPay's documentation does not have: held for an operator", async () => {
      const p = await f.payin("MOBILE_MONEY");
      sim.planPayin(p.transactionId, { outcome: "ODD", callbacks: "once" });
      await sim.pay(p.transactionId);
      assertEquals(await f.payinStatus(p.transactionId), "AWAITING_PAYMENT");
      assert((await f.held("PAYIN", p.transactionId))?.includes("SUSPENDED"));
      await poll(p.transactionId);
      assertEquals(await f.payinStatus(p.transactionId), "AWAITING_PAYMENT");
      assertEquals(await f.credits(p.transactionId), 0);
    });

    await t.step("transfer paid at once (VAL): SUCCEEDED, finished once", async () => {
      const id = await f.queue("+22670111111");
      assertEquals(await processDisbursement(f.gw.deps, id), "sent");
      assertEquals(await f.disbursement(id), {
        ...(await f.disbursement(id)),
        status: "SUCCEEDED",
        finished: 1,
      });
    });

    await t.step("transfer refused (602 INSUFFICIENT_BALANCE): FAILED, nothing paid", async () => {
      sim.planTransfer("70222222", "REJ");
      const id = await f.queue("+22670222222");
      const before = sim.state.transfersMade;
      await processDisbursement(f.gw.deps, id);
      const d = await f.disbursement(id);
      assertEquals([d.status, d.reason, d.finished], ["FAILED", "PROVIDER_REFUSED", 1]);
      assertEquals(sim.state.transfersMade, before);
    });

    await t.step("accepted (NEW) then rejected (REJ): the unsigned callback is re-queried", async () => {
      sim.planTransfer("70333333", "LATE_REJ");
      const id = await f.queue("+22670333333");
      await processDisbursement(f.gw.deps, id);
      assertEquals((await f.disbursement(id)).status, "PENDING");
      await sim.settleTransfers();
      const d = await f.disbursement(id);
      assertEquals([d.status, d.finished], ["FAILED", 1]);
    });

    await t.step("a forged transfer callback moves nothing: CinetPay's check says NEW", async () => {
      sim.planTransfer("70444444", "LATE_VAL");
      const id = await f.queue("+22670444444");
      await processDisbursement(f.gw.deps, id);
      const { reference } = await f.disbursement(id);
      const forged = await f.gw.app.request("/v1/providers/momo/disbursement-callback", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `client_transaction_id=${encodeURIComponent(reference)}&treatment_status=VAL&amount=2500`,
      });
      assertEquals(forged.status, 200);
      await forged.body?.cancel();
      assertEquals((await f.disbursement(id)).status, "PENDING");
      await sim.settleTransfers();
      assertEquals((await f.disbursement(id)).status, "SUCCEEDED");
    });

    await t.step(
      "hostile transfer callbacks: unknown reference, NUL bytes, HTML, no reference: refused",
      async () => {
        for (
          const body of [
            "client_transaction_id=bulk%3Anever-sent&treatment_status=VAL",
            "client_transaction_id=bulk%3Ax%00&treatment_status=VAL",
            "<html><body>VAL</body></html>",
            "treatment_status=VAL&amount=1000000",
          ]
        ) {
          const res = await f.gw.app.request("/v1/providers/momo/disbursement-callback", {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body,
          });
          assertEquals(res.status, 400, body);
          await res.body?.cancel();
        }
      },
    );

    await t.step("callback lost: the sweep settles it after its backoff", async () => {
      sim.planTransfer("70555555", "LOST_CALLBACK");
      const id = await f.queue("+22670555555");
      await processDisbursement(f.gw.deps, id);
      await sim.settleTransfers();
      assertEquals((await f.disbursement(id)).status, "PENDING");
      await f.untilPollDue("DISBURSEMENT", id);
      await sweepDisbursements(f.gw.deps, { olderThanMs: 0 });
      const d = await f.disbursement(id);
      assertEquals([d.status, d.finished], ["SUCCEEDED", 1]);
    });

    await t.step("a treatment_status nobody knows: held, never guessed", async () => {
      sim.planTransfer("70666666", "ODD");
      const id = await f.queue("+22670666666");
      await processDisbursement(f.gw.deps, id);
      assertEquals((await f.disbursement(id)).status, "PENDING");
      assert((await f.held("DISBURSEMENT", id))?.includes("XYZ"));
      await f.untilPollDue("DISBURSEMENT", id);
      await sweepDisbursements(f.gw.deps, { olderThanMs: 0 });
      assertEquals((await f.disbursement(id)).finished, 0);
    });

    await t.step("timeout after the money left: asked by reference later, paid once", async () => {
      sim.planTransfer("70777777", "TIMEOUT");
      const id = await f.queue("+22670777777");
      const sends = sim.state.sendCalls;
      await processDisbursement(f.gw.deps, id);
      assertEquals((await f.disbursement(id)).status, "SENDING");
      f.clock.advance(31_000);
      await sweepDisbursements(f.gw.deps, { olderThanMs: 0 });
      const d = await f.disbursement(id);
      assertEquals([d.status, d.finished], ["SUCCEEDED", 1]);
      assertEquals(sim.state.sendCalls - sends, 1);
    });

    await t.step("aggregator down, then back: sent once it answers, paid once", async () => {
      const id = await f.queue("+22670888888");
      sim.state.down = true;
      await processDisbursement(f.gw.deps, id);
      assertEquals((await f.disbursement(id)).status, "SENDING");
      f.clock.advance(31_000);
      await sweepDisbursements(f.gw.deps, { olderThanMs: 0 });
      assertEquals((await f.disbursement(id)).status, "SENDING");
      sim.state.down = false;
      f.clock.advance(31_000);
      await sweepDisbursements(f.gw.deps, { olderThanMs: 0 });
      const d = await f.disbursement(id);
      assertEquals([d.status, d.finished], ["SUCCEEDED", 1]);
      assertEquals(sim.transfer(d.reference)?.status, "VAL");
    });

    await t.step(
      "crash between CinetPay's answer and our record: asked by reference, paid once",
      async () => {
        const id = await f.queue("+22670999999");
        const crashing = {
          ...cinetpay.momoPayout,
          send: async (input: Parameters<typeof cinetpay.momoPayout.send>[0]) => {
            await cinetpay.momoPayout.send(input);
            throw new Error("process killed");
          },
        };
        const crashed = {
          ...f.gw.deps,
          fiat: { ...f.gw.deps.fiat, live: { ...cinetpay, momoPayout: crashing } },
        };
        const sends = sim.state.sendCalls;
        await processDisbursement(crashed, id).catch(() => {});
        assertEquals((await f.disbursement(id)).status, "SENDING");
        f.clock.advance(31_000);
        await sweepDisbursements(f.gw.deps, { olderThanMs: 0 });
        const d = await f.disbursement(id);
        assertEquals([d.status, d.finished], ["SUCCEEDED", 1]);
        assertEquals(sim.state.sendCalls - sends, 1);
      },
    );
  } finally {
    await sim.close();
    await f.gw.close();
  }
});
