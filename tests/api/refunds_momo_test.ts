// Mobile money refunds: paid back to the paying number through the disbursement seam, once, even when
// the process dies between the aggregator's transfer and the record; a refused transfer returns the money.
import { findDisbursement } from "../../db/disbursements.ts";
import { processDisbursement, sweepDisbursements } from "../../domain/fiat_out/disburse.ts";
import { systemClock } from "../../domain/clock.ts";
import { processRefund } from "../../domain/refunds/send.ts";
import { assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import {
  approve,
  askRefund,
  eventsOf,
  getRefund,
  inFlight,
  paidMomo,
  roomyMerchant,
  runRefundJobs,
  xofWallet,
} from "../refund_fixture.ts";

Deno.test("mobile money refunds: to the paying number once, crash between send and record, refused", async (t) => {
  let offsetMs = 0;
  const clock = { now: () => new Date(systemClock.now().getTime() + offsetMs) };
  const gw = await startTestGateway({ clock });
  const m = await roomyMerchant(gw);
  const key = m.keys.liveSecret;
  const sim = gw.simulators.momoPayout;
  try {
    await paidMomo(gw, key, "20000"); // enough in the wallet for full refunds despite the pay-in fee
    await t.step("refund to the number that paid: approved, disbursed, completed", async () => {
      const payin = await paidMomo(gw, key, "5000", "+22670123456");
      const before = await xofWallet(gw, key, "MOMO");
      const r = (await askRefund(gw, key, payin, {})).json.data;
      assertEquals([r.amount, r.paymentMethod, r.status], ["5000", "MOBILE_MONEY", "PENDING_APPROVAL"]);
      assertEquals(await xofWallet(gw, key, "MOMO"), before - 5000);
      assertEquals(await inFlight(gw, "MOMO"), 5000);
      await approve(gw, r.refundId);
      await runRefundJobs(gw);
      const done = await getRefund(gw, key, r.refundId);
      assertEquals(done.status, "COMPLETED");
      const transfer = sim.get(`refund:${r.refundId}`)!;
      assertEquals([transfer.phone, transfer.amount, transfer.sendCalls], ["+22670123456", "5000", 1]);
      assertEquals(await xofWallet(gw, key, "MOMO"), before - 5000);
      assertEquals(await inFlight(gw, "MOMO"), 0);
      assertEquals(await eventsOf(gw, r.refundId), ["refund.created", "refund.approved", "refund.completed"]);
    });

    await t.step(
      "crash between the aggregator's transfer and the record: asked by reference, paid once",
      async () => {
        const payin = await paidMomo(gw, key, "3000", "+22670223344");
        const before = await xofWallet(gw, key, "MOMO");
        const r = (await askRefund(gw, key, payin, { amount: "2000" })).json.data;
        await approve(gw, r.refundId);
        // The refund job hands the refund to the seam; the disbursement job then dies after sending.
        const crashing = {
          ...sim,
          name: sim.name,
          send: async (input: Parameters<typeof sim.send>[0]) => {
            await sim.send(input);
            throw new Error("process killed");
          },
        };
        const crashDeps = {
          ...gw.deps,
          fiat: {
            sandbox: { ...gw.deps.fiat.sandbox, momoPayout: crashing },
            live: { ...gw.deps.fiat.live!, momoPayout: crashing },
          },
        };
        const made = sim.transfersMade;
        const refundJob = gw.enqueued.findIndex((e) => e.message.type === "refund.send");
        gw.enqueued.splice(refundJob, 1);
        assertEquals(await processRefund(gw.deps, r.refundId), "queued");
        const disbursementId = (await getRow(r.refundId)).disbursement_id!;
        gw.enqueued.length = 0;
        await processDisbursement(crashDeps, disbursementId);
        assertEquals((await findDisbursement(gw.db, disbursementId))!.status, "SENDING");
        assertEquals((await getRefund(gw, key, r.refundId)).status, "PROCESSING");
        offsetMs += 31_000;
        assertEquals(await sweepDisbursements(gw.deps), 1);
        assertEquals((await getRefund(gw, key, r.refundId)).status, "COMPLETED");
        assertEquals(sim.transfersMade, made + 1, "one transfer, whatever the retries");
        assertEquals(await xofWallet(gw, key, "MOMO"), before - 2000);
        assertEquals(await inFlight(gw, "MOMO"), 0);
      },
    );

    await t.step("the aggregator refuses the transfer: refund.failed, the money back once", async () => {
      // A number whose transfers the aggregator accepts, then reports failed by callback.
      const payin = await paidMomo(gw, key, "2500", "+22670000004");
      const before = await xofWallet(gw, key, "MOMO");
      const r = (await askRefund(gw, key, payin, {})).json.data;
      await approve(gw, r.refundId);
      await runRefundJobs(gw);
      assertEquals((await getRefund(gw, key, r.refundId)).status, "PROCESSING");
      await gw.simulators.flush();
      const failed = await getRefund(gw, key, r.refundId);
      assertEquals(failed.status, "FAILED");
      assertEquals(await xofWallet(gw, key, "MOMO"), before);
      assertEquals(await inFlight(gw, "MOMO"), 0);
      // A repeated disbursement job or sweep changes nothing.
      await processDisbursement(gw.deps, (await getRow(r.refundId)).disbursement_id!);
      offsetMs += 60_000;
      await sweepDisbursements(gw.deps);
      assertEquals(await xofWallet(gw, key, "MOMO"), before);
      assertEquals(await eventsOf(gw, r.refundId), ["refund.created", "refund.approved", "refund.failed"]);
    });
  } finally {
    await gw.close();
  }

  async function getRow(id: string) {
    const [row] = await gw.db.query<{ disbursement_id: string | null }>(
      "SELECT disbursement_id FROM refunds WHERE id = $1",
      [id],
    );
    return row;
  }
});
