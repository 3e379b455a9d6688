// XOF withdrawals through the whole app: from the XOF/MOMO or XOF/CARD wallet to a fiat destination,
// reviewed by an operator, paid by the mobile money simulator (success, refusal, timeout then late
// callback, crash between send and record) or completed by an operator after a bank transfer; the
// ledger checked to the franc after each.
import { findSystemAccount, findWallet } from "../../db/ledger.ts";
import { manualClock } from "../../domain/clock.ts";
import { processDisbursement } from "../../domain/fiat_out/disburse.ts";
import { Decimal } from "../../domain/money.ts";
import { signCallback } from "../../rails/fiat/signing.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { creditWallet, eventTypes, idem } from "../money_out_helpers.ts";

async function xofBalance(gw: TestGateway, merchantId: string, rail: "MOMO" | "CARD"): Promise<string> {
  return new Decimal((await findWallet(gw.db, merchantId, false, "XOF", rail))!.balance).toFixed(0);
}

/** What a platform account holds, from its entries. */
async function platform(
  gw: TestGateway,
  kind: "IN_FLIGHT" | "FEES" | "WORLD",
  rail: string,
): Promise<string> {
  const account = await findSystemAccount(gw.db, kind, false, rail);
  const rows = await gw.db.query<{ s: string }>(
    "SELECT COALESCE(sum(amount), 0)::text AS s FROM entries WHERE account_id = $1",
    [account.id],
  );
  return new Decimal(rows[0].s).toFixed(0);
}

Deno.test("XOF withdrawals: momo and bank, review, failures, late answers, ledger exact", async (t) => {
  const clock = manualClock(new Date("2026-11-20T08:00:00Z"));
  const gw = await startTestGateway({ clock });
  try {
    const m = await gw.createMerchant("Ouaga Shop");
    const key = m.keys.liveSecret;
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
      rateLimits: { "POST /v1/withdrawals": 1000, default: 10000 },
    });
    const withdraw = (body: unknown, headers = idem()) =>
      gw.request("POST", "/v1/withdrawals", { key, body, headers });
    const register = async (body: unknown) => {
      const res = await gw.request("POST", "/v1/merchants/fiat-destinations", { key, body });
      assertEquals(res.status, 201, res.text);
      return res.json.data.id as string;
    };
    const approve = (id: string) => gw.admin("POST", `/admin/api/review/${id}/approve`, { reviewer: "awa" });
    /** Runs the fiat.disburse messages enqueued so far (what the KV listener does). */
    const runDisbursements = async () => {
      const messages = gw.enqueued.splice(0).map((e) => e.message).filter((msg) =>
        msg.type === "fiat.disburse"
      );
      for (const msg of messages) {
        await processDisbursement(gw.deps, (msg as { disbursementId: string }).disbursementId);
      }
      return messages.length;
    };
    const get = async (id: string) => (await gw.request("GET", `/v1/withdrawals/${id}`, { key })).json.data;
    await creditWallet(gw, m.merchantId, false, "MOMO", "100000");
    await creditWallet(gw, m.merchantId, false, "CARD", "50000");

    await t.step("no destination: FIAT_DESTINATION_REQUIRED; nothing debited", async () => {
      const res = await withdraw({ amount: "10000", currency: "XOF", rail: "MOMO" });
      assertEquals([res.status, res.json.error.code], [400, "FIAT_DESTINATION_REQUIRED"]);
      assertEquals(await xofBalance(gw, m.merchantId, "MOMO"), "100000");
    });

    const momoDest = await register({
      kind: "MOMO",
      momoOperator: "OPERATOR_B_BF",
      momoPhone: "+22670123456",
    });

    await t.step("cooldown: a destination is usable 24 hours after registration", async () => {
      const res = await withdraw({ amount: "10000", currency: "XOF", rail: "MOMO" });
      assertEquals([res.status, res.json.error.code], [403, "BENEFICIARY_COOLDOWN"]);
      assertEquals(await xofBalance(gw, m.merchantId, "MOMO"), "100000");
      clock.advance(24 * 3600 * 1000 + 1000);
    });

    await t.step("bad bodies: mixed fields, decimals, too small, unknown destination", async () => {
      const cases: Array<[unknown, string]> = [
        [{ amount: "10000", currency: "XOF" }, "VALIDATION_ERROR"],
        [{ amount: "10000", currency: "XOF", rail: "TRC20" }, "VALIDATION_ERROR"],
        [{ amount: "10000", currency: "XOF", rail: "MOMO", whitelistAddressId: "wla_x" }, "VALIDATION_ERROR"],
        [{ amount: "100", fiatDestinationId: momoDest }, "VALIDATION_ERROR"],
        [{ amount: "10000.5", currency: "XOF", rail: "MOMO" }, "INVALID_AMOUNT"],
        [{ amount: "-5", currency: "XOF", rail: "MOMO" }, "INVALID_AMOUNT"],
        [{ amount: "1".repeat(39), currency: "XOF", rail: "MOMO" }, "INVALID_AMOUNT"],
        [{ amount: "999", currency: "XOF", rail: "MOMO" }, "AMOUNT_TOO_SMALL"],
        [{ amount: 10000, currency: "XOF", rail: "MOMO" }, "VALIDATION_ERROR"],
        [{
          amount: "10000",
          currency: "XOF",
          rail: "MOMO",
          fiatDestinationId: "fdst_00000000000000000000000000",
        }, "FIAT_DESTINATION_NOT_FOUND"],
        [
          { amount: "10000", currency: "XOF", rail: "MOMO", fiatDestinationId: "garbage\u0001" },
          "FIAT_DESTINATION_NOT_FOUND",
        ],
        [{ amount: "1000000", currency: "XOF", rail: "MOMO" }, "INSUFFICIENT_BALANCE"],
      ];
      for (const [body, code] of cases) {
        const res = await withdraw(body);
        assertEquals(res.json?.error?.code, code, `${JSON.stringify(body)} -> ${res.text.slice(0, 200)}`);
      }
      // Another merchant's destination is not found.
      const other = await gw.createMerchant("Other");
      const theirs = await gw.request("POST", "/v1/merchants/fiat-destinations", {
        key: other.keys.liveSecret,
        body: { kind: "MOMO", momoOperator: "OPERATOR_B_BF", momoPhone: "+22670999999" },
      });
      const res = await withdraw({
        amount: "10000",
        currency: "XOF",
        rail: "MOMO",
        fiatDestinationId: theirs.json.data.id,
      });
      assertEquals(res.json.error.code, "FIAT_DESTINATION_NOT_FOUND");
      assertEquals(await xofBalance(gw, m.merchantId, "MOMO"), "100000");
    });

    await t.step("momo success: reserved, approved, paid once, CONFIRMED; ledger exact", async () => {
      const res = await withdraw({ amount: "20000", currency: "XOF", rail: "MOMO" });
      assertEquals(res.status, 201, res.text);
      const w = res.json.data;
      assertEquals([
        w.amount,
        w.fee,
        w.netAmount,
        w.status,
        w.currency,
        w.rail,
        w.chain,
        w.destinationAddress,
      ], [
        "20000",
        "500",
        "19500",
        "PENDING_REVIEW",
        "XOF",
        "MOMO",
        "MOMO",
        "+22670123456",
      ]);
      assertEquals(await xofBalance(gw, m.merchantId, "MOMO"), "80000");
      assertEquals(await platform(gw, "IN_FLIGHT", "MOMO"), "20000");
      assertEquals((await approve(w.id)).json.data.item.status, "APPROVED");
      const before = gw.simulators.momoPayout.transfersMade;
      assertEquals(await runDisbursements(), 1);
      const done = await get(w.id);
      assertEquals(done.status, "CONFIRMED");
      assert(done.providerRef?.startsWith("sim_momo_out_"));
      assertEquals(gw.simulators.momoPayout.transfersMade - before, 1);
      assertEquals(gw.simulators.momoPayout.get(`withdrawal:${w.id}`)!.amount, "19500");
      assertEquals(await xofBalance(gw, m.merchantId, "MOMO"), "80000");
      assertEquals(await platform(gw, "IN_FLIGHT", "MOMO"), "0");
      assertEquals(await platform(gw, "FEES", "MOMO"), "500");
      // WORLD gave 150000 (credits) and received 19500 (the payment).
      assertEquals(await platform(gw, "WORLD", "MOMO"), "-80500");
      // One clock tick for all of them: compare as a set, the order is the state table's.
      const events = await eventTypes(gw, m.merchantId);
      assertEquals(
        events.slice(-4).sort(),
        ["withdrawal.requested", "withdrawal.approved", "withdrawal.broadcast", "withdrawal.confirmed"]
          .sort(),
      );
    });

    await t.step("50 concurrent identical requests (one key) reserve once", async () => {
      const headers = idem();
      const body = { amount: "5000", currency: "XOF", rail: "CARD" };
      const results = await Promise.all(Array.from({ length: 50 }, () => withdraw(body, headers)));
      assert(
        results.every((r) => r.status === 201 || r.json?.error?.code === "CONFLICT"),
        results.map((r) => r.status).join(),
      );
      const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.json.data.id));
      assertEquals(ids.size, 1);
      assertEquals(await xofBalance(gw, m.merchantId, "CARD"), "45000");
      // Cancel returns it at once, exactly once.
      const [id] = [...ids];
      assertEquals(
        (await gw.request("DELETE", `/v1/withdrawals/${id}`, { key })).json.data.status,
        "CANCELLED",
      );
      assertEquals(
        (await gw.request("DELETE", `/v1/withdrawals/${id}`, { key })).json.error.code,
        "CANNOT_CANCEL",
      );
      assertEquals(await xofBalance(gw, m.merchantId, "CARD"), "50000");
      assertEquals(await platform(gw, "IN_FLIGHT", "CARD"), "0");
    });

    await t.step("reject: REJECTED, money back once", async () => {
      const w = (await withdraw({ amount: "3000", currency: "XOF", rail: "MOMO" })).json.data;
      assertEquals(await xofBalance(gw, m.merchantId, "MOMO"), "77000");
      const res = await gw.admin("POST", `/admin/api/review/${w.id}/reject`, {
        reviewer: "awa",
        note: "unknown payee",
      });
      assertEquals(res.json.data.item.status, "REJECTED");
      const again = await gw.admin("POST", `/admin/api/review/${w.id}/reject`, {
        reviewer: "awa",
        note: "twice",
      });
      assertEquals(again.json.error.code, "WITHDRAWAL_NOT_PENDING_REVIEW");
      assertEquals(await xofBalance(gw, m.merchantId, "MOMO"), "80000");
    });

    await t.step("momo refusal: FAILED, refunded exactly once", async () => {
      const failing = await register({
        kind: "MOMO",
        momoOperator: "OPERATOR_B_BF",
        momoPhone: "+22670000001",
      });
      clock.advance(24 * 3600 * 1000 + 1000);
      const w =
        (await withdraw({ amount: "10000", currency: "XOF", rail: "MOMO", fiatDestinationId: failing })).json
          .data;
      assertEquals(await xofBalance(gw, m.merchantId, "MOMO"), "70000");
      await approve(w.id);
      await runDisbursements();
      const done = await get(w.id);
      assertEquals([done.status, done.failureReason], ["FAILED", "RECIPIENT_ACCOUNT_BLOCKED"]);
      assertEquals(await xofBalance(gw, m.merchantId, "MOMO"), "80000");
      // Running the job again changes nothing.
      const [d] = await gw.db.query<{ id: string }>("SELECT id FROM fiat_disbursements WHERE owner_id = $1", [
        w.id,
      ]);
      await processDisbursement(gw.deps, d.id, { force: true });
      assertEquals(await xofBalance(gw, m.merchantId, "MOMO"), "80000");
      assertEquals(await platform(gw, "IN_FLIGHT", "MOMO"), "0");
      assertEquals((await eventTypes(gw, m.merchantId)).filter((e) => e === "withdrawal.failed").length, 1);
    });

    await t.step(
      "momo timeout then late callback: CONFIRMED once; replayed and forged callbacks change nothing",
      async () => {
        const slow = await register({
          kind: "MOMO",
          momoOperator: "OPERATOR_B_BF",
          momoPhone: "+22670000002",
        });
        clock.advance(24 * 3600 * 1000 + 1000);
        const w =
          (await withdraw({ amount: "8000", currency: "XOF", rail: "MOMO", fiatDestinationId: slow })).json
            .data;
        await approve(w.id);
        await runDisbursements();
        assertEquals((await get(w.id)).status, "APPROVED");
        // Capture the late callback so it can be replayed afterwards.
        const [d] = await gw.db.query<{ reference: string }>(
          "SELECT reference FROM fiat_disbursements WHERE owner_id = $1",
          [w.id],
        );
        await gw.simulators.flush();
        const done = await get(w.id);
        assertEquals(done.status, "CONFIRMED");
        assertEquals(await xofBalance(gw, m.merchantId, "MOMO"), "72000");
        const fees = await platform(gw, "FEES", "MOMO");
        // A forged FAILED for the same reference (wrong secret), and a well-signed replay of an old id.
        const body = JSON.stringify({
          notificationId: "ntf_forged_1",
          providerRef: done.providerRef,
          reference: d.reference,
          status: "FAILED",
          amount: "0",
          occurredAt: new Date().toISOString(),
        });
        const forged = await gw.request("POST", "/v1/providers/simulator/momo/disbursement-callback", {
          rawBody: body,
          headers: {
            "content-type": "application/json",
            "x-provider-signature": await signCallback("wrong", body, new Date()),
          },
        });
        assertEquals(forged.json.error.code, "INVALID_WEBHOOK_SIGNATURE");
        const secret = gw.deps.config.fiat.callbackSecret!;
        const late = await gw.request("POST", "/v1/providers/simulator/momo/disbursement-callback", {
          rawBody: body,
          headers: {
            "content-type": "application/json",
            "x-provider-signature": await signCallback(secret, body, new Date()),
          },
        });
        // Well signed but about a finished disbursement: accepted, nothing moves.
        assertEquals(late.json.data.status, "SUCCEEDED");
        const replay = await gw.request("POST", "/v1/providers/simulator/momo/disbursement-callback", {
          rawBody: body,
          headers: {
            "content-type": "application/json",
            "x-provider-signature": await signCallback(secret, body, new Date()),
          },
        });
        assertEquals(replay.json.error.code, "CONFLICT");
        const stale = await gw.request("POST", "/v1/providers/simulator/momo/disbursement-callback", {
          rawBody: body.replace("ntf_forged_1", "ntf_forged_2"),
          headers: {
            "content-type": "application/json",
            "x-provider-signature": await signCallback(
              secret,
              body.replace("ntf_forged_1", "ntf_forged_2"),
              new Date(Date.now() - 3600_000),
            ),
          },
        });
        assertEquals(stale.json.error.code, "INVALID_WEBHOOK_SIGNATURE");
        assertEquals((await get(w.id)).status, "CONFIRMED");
        assertEquals(await xofBalance(gw, m.merchantId, "MOMO"), "72000");
        assertEquals(await platform(gw, "FEES", "MOMO"), fees);
      },
    );

    await t.step("crash between send and record: the sweep asks by reference; paid once", async () => {
      const w =
        (await withdraw({ amount: "6000", currency: "XOF", rail: "MOMO", fiatDestinationId: momoDest })).json
          .data;
      await approve(w.id);
      const messages = gw.enqueued.splice(0).map((e) => e.message).filter((msg) =>
        msg.type === "fiat.disburse"
      );
      const id = (messages[0] as { disbursementId: string }).disbursementId;
      const sim = gw.simulators.momoPayout;
      const crashing = {
        ...sim,
        send: async (input: Parameters<typeof sim.send>[0]) => {
          await sim.send(input);
          throw new Error("process killed");
        },
      };
      await processDisbursement({
        ...gw.deps,
        fiat: {
          ...gw.deps.fiat,
          sandbox: { ...gw.deps.fiat.sandbox, momoPayout: crashing },
          live: { ...gw.deps.fiat.sandbox, momoPayout: crashing },
        },
      }, id);
      assertEquals((await get(w.id)).status, "APPROVED");
      clock.advance(60_000);
      await processDisbursement(gw.deps, id);
      assertEquals((await get(w.id)).status, "CONFIRMED");
      assertEquals(sim.get(`withdrawal:${w.id}`)!.sendCalls, 1);
      assertEquals(await xofBalance(gw, m.merchantId, "MOMO"), "66000");
      assertEquals(await platform(gw, "IN_FLIGHT", "MOMO"), "0");
    });

    await t.step("bank: approve refused; completed by an operator with a providerRef", async () => {
      const bank = await register({
        kind: "BANK",
        bankName: "Banque Atlantique",
        bankAccountName: "Ouaga Shop SARL",
        bankIban: "DE89370400440532013000",
      });
      clock.advance(24 * 3600 * 1000 + 1000);
      const w =
        (await withdraw({ amount: "40000", currency: "XOF", rail: "CARD", fiatDestinationId: bank })).json
          .data;
      assertEquals([w.chain, w.destinationAddress], ["BANK", "DE89370400440532013000"]);
      assertEquals(await xofBalance(gw, m.merchantId, "CARD"), "10000");
      const refused = await approve(w.id);
      assertEquals([refused.status, refused.json.error.code], [
        400,
        "WITHDRAWAL_APPROVE_NOT_SUPPORTED_FOR_FIAT",
      ]);
      // Deleting the destination does not break the withdrawal: it is paid to the details it carries.
      assertEquals(
        (await gw.request("DELETE", `/v1/merchants/fiat-destinations/${bank}`, { key })).status,
        200,
      );
      const missingRef = await gw.admin("POST", `/admin/api/review/${w.id}/complete-fiat`, {
        reviewer: "awa",
      });
      assertEquals(missingRef.json.error.code, "VALIDATION_ERROR");
      const done = await gw.admin("POST", `/admin/api/review/${w.id}/complete-fiat`, {
        reviewer: "awa",
        providerRef: "BA-2026-000123",
      });
      assertEquals(done.status, 200, done.text);
      assertEquals(done.json.data.item.status, "CONFIRMED");
      assertEquals((await get(w.id)).providerRef, "BA-2026-000123");
      const twice = await gw.admin("POST", `/admin/api/review/${w.id}/complete-fiat`, {
        reviewer: "awa",
        providerRef: "BA-2026-000124",
      });
      assertEquals(twice.json.error.code, "WITHDRAWAL_NOT_PENDING_REVIEW");
      assertEquals(await xofBalance(gw, m.merchantId, "CARD"), "10000");
      assertEquals(await platform(gw, "IN_FLIGHT", "CARD"), "0");
      assertEquals(await platform(gw, "FEES", "CARD"), "500");
      const history = await gw.admin("GET", `/admin/api/review/${w.id}`);
      assert(history.json.data.decisions[0].note.includes("BA-2026-000123"));
    });

    await t.step(
      "complete-fiat on a mobile money one: WITHDRAWAL_NOT_FIAT; on unknown ids: NOT_FOUND",
      async () => {
        const w =
          (await withdraw({ amount: "2000", currency: "XOF", rail: "MOMO", fiatDestinationId: momoDest }))
            .json.data;
        const res = await gw.admin("POST", `/admin/api/review/${w.id}/complete-fiat`, {
          reviewer: "a",
          providerRef: "X",
        });
        assertEquals(res.json.error.code, "WITHDRAWAL_NOT_FIAT");
        const unknown = await gw.admin(
          "POST",
          `/admin/api/review/wdr_00000000000000000000000000/complete-fiat`,
          {
            reviewer: "a",
            providerRef: "X",
          },
        );
        assertEquals(unknown.json.error.code, "NOT_FOUND");
        assertEquals(
          (await gw.request("DELETE", `/v1/withdrawals/${w.id}`, { key })).json.data.status,
          "CANCELLED",
        );
      },
    );

    await t.step("the XOF withdrawal list shows whole francs", async () => {
      const list = (await gw.request("GET", "/v1/withdrawals", { key })).json.data.items;
      assert(list.length >= 8);
      for (const w of list) assert(/^\d+$/.test(w.amount), w.amount);
    });
  } finally {
    await gw.close();
  }
});
