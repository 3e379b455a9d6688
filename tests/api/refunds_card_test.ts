// Card refunds over HTTP: asked, reserved, approved by an operator, paid through the acquirer's refund call
// exactly once (at once, late by callback, by a duplicated callback, refused, after a crash between sending
// and recording), with the merchant's wallet and IN_FLIGHT checked after each step.
import { SIGNATURE_HEADER, signCallback } from "../../rails/fiat/signing.ts";
import { REFUND_TEST_AMOUNTS } from "../../rails/fiat/mod.ts";
import type { CardRefundInput } from "../../rails/fiat/provider.ts";
import { processRefund, sweepRefunds } from "../../domain/refunds/send.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import {
  approve,
  askRefund,
  eventsOf,
  getRefund,
  inFlight,
  paidCard,
  roomyMerchant,
  runRefundJobs,
  xofWallet,
} from "../refund_fixture.ts";

Deno.test("card refunds: reserve, approve, pay once; partial, refused, late and duplicate callbacks", async (t) => {
  const gw = await startTestGateway();
  const m = await roomyMerchant(gw);
  const key = m.keys.liveSecret;
  const card = gw.simulators.card;
  try {
    await t.step("full refund: reserved at once, approved, refunded by the acquirer", async () => {
      const payin = await paidCard(gw, key, "10000");
      // The pay-in fee stays with the platform, so the wallet (10000 less the fee) cannot give back the
      // whole 10000: refused, and nothing is reserved.
      const short = await askRefund(gw, key, payin, { reason: "Order cancelled" });
      assertEquals([short.status, short.json.error.code], [400, "INSUFFICIENT_BALANCE"]);
      assertEquals(await inFlight(gw, "CARD"), 0);
      await paidCard(gw, key, "5000"); // another sale fills the wallet
      const wallet = await xofWallet(gw, key, "CARD");
      const res = await askRefund(gw, key, payin, { reason: "Order cancelled" });
      assertEquals(res.status, 201, res.text);
      const r = res.json.data;
      assertEquals([r.status, r.amount, r.currency, r.paymentMethod, r.transactionId], [
        "PENDING_APPROVAL",
        "10000",
        "XOF",
        "CARD",
        payin,
      ]);
      // The whole amount the customer paid leaves the wallet.
      assertEquals(await xofWallet(gw, key, "CARD"), wallet - 10000);
      assertEquals(await inFlight(gw, "CARD"), 10000);
      assertEquals(await eventsOf(gw, r.refundId), ["refund.created"]);

      const ok = await approve(gw, r.refundId);
      assertEquals(ok.status, 200, ok.text);
      assertEquals(ok.json.data.refund.status, "APPROVED");
      await runRefundJobs(gw);
      const done = await getRefund(gw, key, r.refundId);
      assertEquals(done.status, "COMPLETED");
      assert(done.providerRef?.startsWith("sim_rfd_"));
      assertEquals(card.getRefund(r.refundId)?.calls, 1);
      assertEquals(await inFlight(gw, "CARD"), 0);
      assertEquals(await xofWallet(gw, key, "CARD"), wallet - 10000);
      assertEquals(await eventsOf(gw, r.refundId), ["refund.created", "refund.approved", "refund.completed"]);
      // A second job run (a repeated KV message) sends nothing again.
      assertEquals(await processRefund(gw.deps, r.refundId), "final");
      assertEquals(card.getRefund(r.refundId)?.calls, 1);
    });

    await t.step("partial refunds sum exactly to the pay-in, then one more is refused", async () => {
      const payin = await paidCard(gw, key, "3000");
      const before = await xofWallet(gw, key, "CARD");
      for (const amount of ["1000", "1500"]) {
        const res = await askRefund(gw, key, payin, { amount });
        assertEquals(res.status, 201, res.text);
        await approve(gw, res.json.data.refundId);
      }
      await runRefundJobs(gw);
      const rest = await askRefund(gw, key, payin, {});
      assertEquals([rest.status, rest.json.data.amount], [201, "500"]);
      const more = await askRefund(gw, key, payin, { amount: "1" });
      assertEquals([more.status, more.json.error.code], [400, "REFUND_EXCEEDS_AMOUNT"]);
      const none = await askRefund(gw, key, payin, {});
      assertEquals([none.status, none.json.error.code], [400, "REFUND_EXCEEDS_AMOUNT"]);
      assertEquals(await xofWallet(gw, key, "CARD"), before - 3000);
      // Cancelled while waiting: the 500 returns and can be asked again.
      const cancelled = await gw.request("POST", `/v1/refunds/${rest.json.data.refundId}/cancel`, { key });
      assertEquals([cancelled.status, cancelled.json.data.status], [200, "CANCELLED"]);
      assertEquals(await xofWallet(gw, key, "CARD"), before - 2500);
      const again = await gw.request("POST", `/v1/refunds/${rest.json.data.refundId}/cancel`, { key });
      assertEquals([again.status, again.json.error.code], [400, "CANNOT_CANCEL"]);
      assertEquals(await xofWallet(gw, key, "CARD"), before - 2500);
      assertEquals(await inFlight(gw, "CARD"), 0);
    });

    await t.step("refused by the acquirer: refund.failed and the money back in the wallet once", async () => {
      const payin = await paidCard(gw, key, "5000");
      const before = await xofWallet(gw, key, "CARD");
      const r = (await askRefund(gw, key, payin, { amount: REFUND_TEST_AMOUNTS.REFUSED })).json.data;
      assertEquals(await xofWallet(gw, key, "CARD"), before - 777);
      await approve(gw, r.refundId);
      await runRefundJobs(gw);
      const failed = await getRefund(gw, key, r.refundId);
      assertEquals([failed.status, failed.failureReason], ["FAILED", "REFUND_REFUSED"]);
      assertEquals(await xofWallet(gw, key, "CARD"), before);
      assertEquals(await inFlight(gw, "CARD"), 0);
      assertEquals(await eventsOf(gw, r.refundId), ["refund.created", "refund.approved", "refund.failed"]);
      // What failed is refundable again.
      const retry = await askRefund(gw, key, payin, { amount: "5000" });
      assertEquals(retry.status, 201, retry.text);
      const back = await gw.request("POST", `/v1/refunds/${retry.json.data.refundId}/cancel`, { key });
      assertEquals(back.json.data.status, "CANCELLED");
      assertEquals(await inFlight(gw, "CARD"), 0);
    });

    await t.step("late answer by signed callback; the duplicate callback changes nothing", async () => {
      const payin = await paidCard(gw, key, "5000");
      const before = await xofWallet(gw, key, "CARD");
      const r = (await askRefund(gw, key, payin, { amount: REFUND_TEST_AMOUNTS.LATE })).json.data;
      await approve(gw, r.refundId);
      await runRefundJobs(gw);
      assertEquals((await getRefund(gw, key, r.refundId)).status, "PROCESSING");
      await gw.simulators.flush(); // the acquirer's callback arrives
      const done = await getRefund(gw, key, r.refundId);
      assertEquals(done.status, "COMPLETED");
      // The same notification again, signed and fresh: a replay, refused, nothing moves.
      const body = JSON.stringify({
        notificationId: "ntf_dup_1",
        providerRef: done.providerRef,
        reference: r.refundId,
        status: "SUCCEEDED",
        amount: "778",
        occurredAt: new Date().toISOString(),
      });
      const secret = gw.deps.config.fiat.callbackSecret!;
      const send = async () =>
        await gw.request("POST", "/v1/providers/simulator/card/refund-callback", {
          rawBody: body,
          headers: {
            "content-type": "application/json",
            [SIGNATURE_HEADER]: await signCallback(secret, body, new Date()),
          },
        });
      // A notification for a refund already final is recorded, then applies nothing.
      const first = await send();
      assertEquals([first.status, first.json.data.status], [200, "COMPLETED"]);
      const dup = await send();
      assertEquals([dup.status, dup.json.error.code], [409, "CONFLICT"]);
      const forged = await gw.request("POST", "/v1/providers/simulator/card/refund-callback", {
        rawBody: body,
        headers: { "content-type": "application/json", [SIGNATURE_HEADER]: `t=1,v1=${"0".repeat(64)}` },
      });
      assertEquals([forged.status, forged.json.error.code], [400, "INVALID_WEBHOOK_SIGNATURE"]);
      assertEquals(await xofWallet(gw, key, "CARD"), before - 778);
      assertEquals(await inFlight(gw, "CARD"), 0);
      assertEquals(
        (await eventsOf(gw, r.refundId)).filter((e) => e === "refund.completed").length,
        1,
      );
    });

    await t.step("the simulator's duplicate callback: refunded once, refund.completed once", async () => {
      const payin = await paidCard(gw, key, "5000");
      const before = await xofWallet(gw, key, "CARD");
      // Every answer the gateway gives the acquirer's callbacks for this refund.
      const answers: number[] = [];
      const original = gw.app.fetch;
      gw.app.fetch = async (request: Request, ...rest: unknown[]) => {
        const res = await (original as (r: Request, ...x: unknown[]) => Response | Promise<Response>)(
          request,
          ...rest,
        );
        if (request.url.includes("/refund-callback")) answers.push(res.status);
        return res;
      };
      try {
        const r = (await askRefund(gw, key, payin, { amount: REFUND_TEST_AMOUNTS.DUPLICATE })).json.data;
        await approve(gw, r.refundId);
        await runRefundJobs(gw);
        assertEquals((await getRefund(gw, key, r.refundId)).status, "PROCESSING");
        await gw.simulators.flush(); // the same signed notification, twice
        assertEquals(answers, [200, 409], "the copy is recognised as a replay");
        assertEquals((await getRefund(gw, key, r.refundId)).status, "COMPLETED");
        assertEquals(card.getRefund(r.refundId)?.calls, 1);
        assertEquals(await xofWallet(gw, key, "CARD"), before - 780);
        assertEquals(await inFlight(gw, "CARD"), 0);
        assertEquals(await eventsOf(gw, r.refundId), [
          "refund.created",
          "refund.approved",
          "refund.completed",
        ]);
      } finally {
        gw.app.fetch = original;
      }
    });

    await t.step(
      "crash between the acquirer's refund and the record: asked by reference, refunded once",
      async () => {
        const payin = await paidCard(gw, key, "5000");
        const before = await xofWallet(gw, key, "CARD");
        const r = (await askRefund(gw, key, payin, { amount: "1200" })).json.data;
        await approve(gw, r.refundId);
        gw.enqueued.length = 0;
        const crashing = {
          ...card,
          refund: async (input: CardRefundInput) => {
            await card.refund!(input);
            throw new Error("process killed");
          },
        };
        const crashDeps = {
          ...gw.deps,
          fiat: {
            sandbox: { ...gw.deps.fiat.sandbox, card: crashing },
            live: { ...gw.deps.fiat.live!, card: crashing },
          },
        };
        await processRefund(crashDeps, r.refundId);
        assertEquals((await getRefund(gw, key, r.refundId)).status, "SENDING");
        // Too early: the sender may still be at work.
        assertEquals(await processRefund(gw.deps, r.refundId), "waiting");
        assertEquals(await sweepRefunds(gw.deps, { olderThanMs: 0 }), 1);
        assertEquals((await getRefund(gw, key, r.refundId)).status, "COMPLETED");
        assertEquals(card.getRefund(r.refundId)?.calls, 1, "asked, never sent twice");
        assertEquals(await xofWallet(gw, key, "CARD"), before - 1200);
        assertEquals(await inFlight(gw, "CARD"), 0);
      },
    );

    await t.step("timeout: the answer is lost, the sweep asks, the callback completes it once", async () => {
      const payin = await paidCard(gw, key, "5000");
      const before = await xofWallet(gw, key, "CARD");
      const r = (await askRefund(gw, key, payin, { amount: REFUND_TEST_AMOUNTS.TIMEOUT })).json.data;
      await approve(gw, r.refundId);
      await runRefundJobs(gw);
      assertEquals((await getRefund(gw, key, r.refundId)).status, "SENDING");
      await sweepRefunds(gw.deps, { olderThanMs: 0 });
      assertEquals((await getRefund(gw, key, r.refundId)).status, "PROCESSING");
      await gw.simulators.flush();
      assertEquals((await getRefund(gw, key, r.refundId)).status, "COMPLETED");
      assertEquals(card.getRefund(r.refundId)?.calls, 1);
      assertEquals(await xofWallet(gw, key, "CARD"), before - 779);
      assertEquals(await inFlight(gw, "CARD"), 0);
    });
  } finally {
    await gw.close();
  }
});
