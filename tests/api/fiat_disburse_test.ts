// The reusable disbursement API (domain/fiat_out/disburse.ts) on its own: a row queued in the caller's
// transaction, sent once, finished once through the owner's finisher, whatever crashes, timeouts, late or
// replayed callbacks happen in between.
import { findDisbursement } from "../../db/disbursements.ts";
import type { Db } from "../../db/mod.ts";
import { manualClock } from "../../domain/clock.ts";
import {
  type DisbursementOutcome,
  type DisbursementRow,
  processDisbursement,
  queueDisbursement,
  registerDisbursementFinisher,
  sweepDisbursements,
} from "../../domain/fiat_out/disburse.ts";
import { ProviderError } from "../../rails/fiat/provider.ts";
import { signCallback } from "../../rails/fiat/signing.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

// A stand-in owner: what a bulk item would do, recorded in a table of the test's own, in the same tx.
const finished: Array<{ id: string; outcome: DisbursementOutcome }> = [];
registerDisbursementFinisher("BULK_ITEM", async (tx: Db, d: DisbursementRow, outcome) => {
  await tx.query("INSERT INTO test_finished (disbursement_id, status) VALUES ($1, $2)", [
    d.id,
    outcome.status,
  ]);
  finished.push({ id: d.id, outcome });
});

Deno.test("disbursements: queued in the caller's transaction, sent once, finished once", async (t) => {
  const clock = manualClock(new Date("2026-11-20T10:00:00Z"));
  const gw = await startTestGateway({ clock });
  try {
    await gw.db.exec("CREATE TABLE test_finished (disbursement_id text PRIMARY KEY, status text NOT NULL)");
    const m = await gw.createMerchant("Disbursing Shop");
    const sim = gw.simulators.momoPayout;
    const queue = (phone: string, amount = "2500", reference = `bulk:${crypto.randomUUID()}`) =>
      gw.db.tx((tx) =>
        queueDisbursement(tx, {
          reference,
          owner: { kind: "BULK_ITEM", id: `item_${reference}` },
          merchantId: m.merchantId,
          isSandbox: true,
          channel: "MOMO",
          amount,
          destination: {
            kind: "MOMO",
            momoOperator: phone.startsWith("+2267") ? "OPERATOR_B_BF" : "OPERATOR_A_BF",
            momoPhone: phone,
          },
          now: clock.now(),
        })
      );
    const rowsFinished = async (id: string) =>
      (await gw.db.query("SELECT 1 FROM test_finished WHERE disbursement_id = $1", [id])).length;

    await t.step("a rolled-back caller leaves no disbursement behind", async () => {
      let id = "";
      await gw.db.tx(async (tx) => {
        id = await queueDisbursement(tx, {
          reference: "bulk:rolled-back",
          owner: { kind: "BULK_ITEM", id: "item_x" },
          merchantId: m.merchantId,
          isSandbox: true,
          channel: "MOMO",
          amount: "1000",
          destination: { kind: "MOMO", momoOperator: "OPERATOR_B_BF", momoPhone: "+22670123456" },
        });
        throw new Error("caller fails");
      }).catch(() => {});
      assertEquals(await findDisbursement(gw.db, id), undefined);
    });

    await t.step(
      "a wrong operator for the number or a non-integer amount is refused at queue time",
      async () => {
        const bad = (amount: string, momoOperator: "OPERATOR_A_BF" | "OPERATOR_B_BF") =>
          gw.db.tx((tx) =>
            queueDisbursement(tx, {
              reference: `bulk:${crypto.randomUUID()}`,
              owner: { kind: "BULK_ITEM", id: "item_bad" },
              merchantId: m.merchantId,
              isSandbox: true,
              channel: "MOMO",
              amount,
              destination: { kind: "MOMO", momoOperator, momoPhone: "+22670123456" },
            })
          ).then(() => "ok", (e) => e.code);
        assertEquals(await bad("1000", "OPERATOR_A_BF"), "FIAT_DESTINATION_INVALID");
        assertEquals(await bad("10.5", "OPERATOR_B_BF"), "INVALID_AMOUNT");
      },
    );

    await t.step("instant success: sent once, finisher once, a second run does nothing", async () => {
      const id = await queue("+22670123456");
      const before = sim.transfersMade;
      assertEquals(await processDisbursement(gw.deps, id), "sent");
      assertEquals(await processDisbursement(gw.deps, id, { force: true }), "final");
      const row = (await findDisbursement(gw.db, id))!;
      assertEquals(row.status, "SUCCEEDED");
      assert(row.provider_ref?.startsWith("sim_momo_out_"));
      assertEquals(sim.transfersMade - before, 1);
      assertEquals(await rowsFinished(id), 1);
      assertEquals(finished.filter((f) => f.id === id).length, 1);
    });

    await t.step("refused by the operator: FAILED with its reason, nothing paid", async () => {
      const id = await queue("+22670000001");
      const before = sim.transfersMade;
      await processDisbursement(gw.deps, id);
      const row = (await findDisbursement(gw.db, id))!;
      assertEquals([row.status, row.failure_reason], ["FAILED", "RECIPIENT_ACCOUNT_BLOCKED"]);
      assertEquals(sim.transfersMade, before);
      assertEquals(finished.find((f) => f.id === id)?.outcome.status, "FAILED");
    });

    await t.step("crash between send and record: re-asked by reference, paid once", async () => {
      const id = await queue("+22654123456", "7000");
      // The provider receives the transfer, then the process dies before recording the answer.
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
        fiat: { ...gw.deps.fiat, sandbox: { ...gw.deps.fiat.sandbox, momoPayout: crashing } },
      };
      const before = sim.transfersMade;
      await processDisbursement(crashDeps, id);
      assertEquals((await findDisbursement(gw.db, id))!.status, "SENDING");
      // Too early: the sender may still be at work, nobody re-sends.
      assertEquals(await processDisbursement(gw.deps, id), "waiting");
      clock.advance(31_000);
      assertEquals(await sweepDisbursements(gw.deps), 1);
      const row = (await findDisbursement(gw.db, id))!;
      assertEquals(row.status, "SUCCEEDED");
      assertEquals(sim.transfersMade - before, 1);
      assertEquals(sim.get(row.reference)!.sendCalls, 1);
      assertEquals(await rowsFinished(id), 1);
    });

    await t.step("50 concurrent job runs on one disbursement pay once", async () => {
      const id = await queue("+22670555555", "3000");
      const before = sim.transfersMade;
      await Promise.all(Array.from({ length: 50 }, () => processDisbursement(gw.deps, id, { force: true })));
      assertEquals((await findDisbursement(gw.db, id))!.status, "SUCCEEDED");
      assertEquals(sim.transfersMade - before, 1);
      assertEquals(await rowsFinished(id), 1);
    });

    await t.step(
      "timeout: SENDING, then the late signed callback finishes it; a replay changes nothing",
      async () => {
        const id = await queue("+22670000002", "4000");
        const before = sim.transfersMade;
        assertEquals(await processDisbursement(gw.deps, id), "sent");
        assertEquals((await findDisbursement(gw.db, id))!.status, "SENDING");
        await gw.simulators.flush();
        const row = (await findDisbursement(gw.db, id))!;
        assertEquals(row.status, "SUCCEEDED");
        assertEquals(sim.transfersMade - before, 1);
        assertEquals(await rowsFinished(id), 1);
      },
    );

    await t.step("late success delivered twice: finished once; forged callbacks refused", async () => {
      const id = await queue("+22670000003", "5000");
      assertEquals(await processDisbursement(gw.deps, id), "sent");
      const pending = (await findDisbursement(gw.db, id))!;
      assertEquals(pending.status, "PENDING");
      // A forged "FAILED" before the real answer: wrong secret.
      const body = JSON.stringify({
        notificationId: "ntf_forged",
        providerRef: pending.provider_ref,
        reference: pending.reference,
        status: "FAILED",
        amount: "0",
        reason: "FORGED",
        occurredAt: new Date().toISOString(),
      });
      const forged = await gw.request("POST", "/v1/providers/simulator/momo/disbursement-callback", {
        rawBody: body,
        headers: {
          "content-type": "application/json",
          "x-provider-signature": await signCallback("not-the-secret", body, new Date()),
        },
      });
      assertEquals([forged.status, forged.json.error.code], [400, "INVALID_WEBHOOK_SIGNATURE"]);
      await gw.simulators.flush();
      const row = (await findDisbursement(gw.db, id))!;
      assertEquals(row.status, "SUCCEEDED");
      assertEquals(await rowsFinished(id), 1);
      assertEquals(finished.filter((f) => f.id === id).length, 1);
    });

    await t.step("late failure arrives by callback: FAILED once", async () => {
      const id = await queue("+22654000004", "6000");
      await processDisbursement(gw.deps, id);
      assertEquals((await findDisbursement(gw.db, id))!.status, "PENDING");
      await gw.simulators.flush();
      const row = (await findDisbursement(gw.db, id))!;
      assertEquals([row.status, row.failure_reason], ["FAILED", "RECIPIENT_NOT_FOUND"]);
      assertEquals(await rowsFinished(id), 1);
    });

    await t.step("a provider that never got it (lost before sending) is sent it once more", async () => {
      const id = await queue("+22670666666", "3500");
      const lost = {
        ...sim,
        send: () => Promise.reject(new ProviderError("unavailable", "connection refused")),
      };
      const lostDeps = {
        ...gw.deps,
        fiat: { ...gw.deps.fiat, sandbox: { ...gw.deps.fiat.sandbox, momoPayout: lost } },
      };
      await processDisbursement(lostDeps, id);
      assertEquals((await findDisbursement(gw.db, id))!.status, "SENDING");
      clock.advance(31_000);
      assertEquals(await processDisbursement(gw.deps, id), "sent");
      const row = (await findDisbursement(gw.db, id))!;
      assertEquals([row.status, row.attempts], ["SUCCEEDED", 2]);
    });
  } finally {
    await gw.close();
  }
});
