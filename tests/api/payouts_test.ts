// Payouts through the whole app: the rules of acceptance, the reservation, the estimate, manual
// approval above 50,000, bad input that reserves nothing, and 100 concurrent payouts on one balance.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { OPERATOR_TEST_ENV, operatorClient } from "../operator_helpers.ts";
import {
  creditUsdt,
  eventTypes,
  idem,
  inFlight,
  randomTronAddress,
  usdtBalance,
  whitelist,
} from "../money_out_helpers.ts";

Deno.test("payouts: acceptance, reservation, estimate, review, bad input", async (t) => {
  // Its large payouts (50,001 USDT for review) pass more than the default daily plan cap in one day.
  const gw = await startTestGateway({ env: { ...OPERATOR_TEST_ENV, PLAN_MONEY_OUT_DAILY_USDT: "1000000" } });
  try {
    const m = await gw.createMerchant("Payout Shop");
    const key = m.keys.liveSecret;
    // The specification's 10 payouts a minute would stop this walk through every case; an operator lifts it.
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
      rateLimits: { "POST /v1/payout": 1000 },
    });
    await creditUsdt(gw, m.merchantId, false, "100");
    const dest = randomTronAddress();
    await whitelist(gw, key, dest, ["PAYOUT"]);
    const post = (body: unknown, headers: Record<string, string> = idem()) =>
      gw.request("POST", "/v1/payout", { key, body, headers });

    await t.step("bad input answers its code and reserves nothing", async () => {
      const cases: Array<[unknown, string, Record<string, string>?]> = [
        [{ amount: "10", destinationAddress: dest }, "MISSING_IDEMPOTENCY_KEY", {}],
        [{ amount: "10", destinationAddress: dest }, "IDEMPOTENCY_KEY_INVALID", {
          "idempotency-key": "nope",
        }],
        [{ amount: "10", destinationAddress: "T123" }, "INVALID_ADDRESS"],
        [{ amount: "10", destinationAddress: randomTronAddress() }, "ADDRESS_NOT_WHITELISTED"],
        [{ amount: "4.999999", destinationAddress: dest }, "AMOUNT_TOO_SMALL"],
        [{ amount: "10.1234567", destinationAddress: dest }, "INVALID_AMOUNT"],
        [{ amount: "-10", destinationAddress: dest }, "INVALID_AMOUNT"],
        [{ amount: "1e3", destinationAddress: dest }, "INVALID_AMOUNT"],
        [{ amount: "99.000001", destinationAddress: dest }, "INSUFFICIENT_BALANCE"],
        [{ amount: 10, destinationAddress: dest }, "VALIDATION_ERROR"],
        [{ amount: "10", destinationAddress: dest, currency: "XOF" }, "VALIDATION_ERROR"],
        [{ amount: "10", destinationAddress: dest, extra: true }, "VALIDATION_ERROR"],
      ];
      for (const [body, code, headers] of cases) {
        const res = await post(body, headers ?? idem());
        assertEquals(res.json?.error?.code, code, JSON.stringify(body));
      }
      assertEquals(await usdtBalance(gw, m.merchantId, false), "100.000000");
      assertEquals(await inFlight(gw, false), "0.000000");
      assertEquals((await gw.db.query("SELECT id FROM outbound_transfers")).length, 0);
    });

    await t.step("a payout to a whitelisted address reserves amount + fee at once", async () => {
      const res = await post({
        amount: "25.5",
        destinationAddress: dest,
        externalRef: "supplier-7",
        metadata: { a: 1 },
      });
      assertEquals(res.status, 201);
      const d = res.json.data;
      assertMatch(d.transactionId, /^pout_/);
      assertEquals(
        [d.status, d.processingFee, d.requiresManualApproval, d.currentPayinFee, d.currentTier],
        ["PROCESSING", "1.000000", false, "1.5%", "STANDARD"],
      );
      assertEquals([d.amount, d.totalDebited, d.destinationAddress], ["25.500000", "26.500000", dest]);
      assertEquals(await usdtBalance(gw, m.merchantId, false), "73.500000");
      assertEquals(await inFlight(gw, false), "26.500000");
      // One transaction, one instant: the set is what is certain, not the order.
      assertEquals((await eventTypes(gw, m.merchantId)).sort(), [
        "payout.approved",
        "payout.requested",
        "withdrawal.approved",
        "withdrawal.requested",
      ]);
      assert(gw.enqueued.some((e) => (e.message as { outboundId?: string }).outboundId === d.transactionId));
      const got = await gw.request("GET", `/v1/payout/${d.transactionId}`, { key });
      assertEquals(got.json.data.status, "PROCESSING");
      assertEquals(got.json.data.externalRef, "supplier-7");
    });

    await t.step("the same Idempotency-Key replays the answer and reserves once", async () => {
      const headers = idem();
      const body = { amount: "5", destinationAddress: dest };
      const [a, b] = [await post(body, headers), await post(body, headers)];
      assertEquals([a.status, b.status], [201, 201]);
      assertEquals(a.json.data.transactionId, b.json.data.transactionId);
      assertEquals(b.headers.get("idempotent-replayed"), "true");
      assertEquals(await usdtBalance(gw, m.merchantId, false), "67.500000");
      const other = await post({ amount: "6", destinationAddress: dest }, headers);
      assertEquals(other.json.error.code, "IDEMPOTENCY_KEY_MISMATCH");
    });

    await t.step("estimate: fee, total, spendable, sufficient; nothing reserved", async () => {
      const est = await gw.request("POST", "/v1/payout/estimate", {
        key,
        body: { amount: "66.5", destinationAddress: randomTronAddress() },
      });
      assertEquals(est.status, 200);
      assertEquals(est.json.data, {
        fee: "1.000000",
        totalDebited: "67.500000",
        availableBalance: "67.500000",
        sufficient: true,
      });
      const short = await gw.request("POST", "/v1/payout/estimate", {
        key,
        body: { amount: "66.500001", destinationAddress: dest },
      });
      assertEquals(short.json.data.sufficient, false);
      const bad = await gw.request("POST", "/v1/payout/estimate", {
        key,
        body: { amount: "7", destinationAddress: "x" },
      });
      assertEquals(bad.json.error.code, "INVALID_ADDRESS");
      assertEquals(await usdtBalance(gw, m.merchantId, false), "67.500000");
    });

    await t.step("above 50,000 a payout waits in PENDING; two different reviewers approve it", async () => {
      await creditUsdt(gw, m.merchantId, false, "60000");
      const res = await post({ amount: "50000.000001", destinationAddress: dest });
      assertEquals([res.status, res.json.data.status, res.json.data.requiresManualApproval], [
        201,
        "PENDING",
        true,
      ]);
      const id = res.json.data.transactionId;
      const queue = await gw.admin("GET", "/admin/api/review");
      assert(queue.json.data.some((q: { item: { transactionId: string } }) => q.item.transactionId === id));
      // Four eyes (FOUR_EYES_ABOVE_USDT, 50,000 by default): the first approval is recorded, the payout waits.
      const first = await gw.admin("POST", `/admin/api/review/${id}/approve`, { reviewer: "awa" });
      assertEquals([first.json.data.item.status, first.json.data.approvals], ["PENDING", {
        needed: 2,
        given: 1,
        by: ["awa"],
      }]);
      // The token is one person, whatever name it gives.
      const sameToken = await gw.admin("POST", `/admin/api/review/${id}/approve`, { reviewer: "moussa" });
      assertEquals([sameToken.status, sameToken.json.error.cause], [403, "SAME_APPROVER"]);
      const second = await operatorClient(gw, "reviewer");
      const approved = await second.call("POST", `/admin/api/review/${id}/approve`, {});
      assertEquals([approved.json.data.item.status, approved.json.data.approvals.needed], ["PROCESSING", 2]);
      const again = await gw.admin("POST", `/admin/api/review/${id}/approve`, { reviewer: "awa" });
      assertEquals(again.json.error.code, "INVALID_TRANSACTION_STATUS");
      const history = await gw.admin("GET", `/admin/api/review/${id}`);
      assertEquals(
        history.json.data.decisions.map((
          d: { decision: string; reviewer: string },
        ) => [d.decision, d.reviewer]),
        [
          ["FIRST_APPROVAL", "awa"],
          ["APPROVE", second.operator.email],
        ],
      );
      const forged = await gw.request("POST", `/admin/api/review/${id}/approve`, {
        key,
        body: { reviewer: "me" },
      });
      assertEquals(forged.status, 401);
    });

    await t.step("a rejected payout fails with its money back; a note is required", async () => {
      await creditUsdt(gw, m.merchantId, false, "60000");
      const before = await usdtBalance(gw, m.merchantId, false);
      const res = await post({ amount: "50001", destinationAddress: dest });
      const id = res.json.data.transactionId;
      const noNote = await gw.admin("POST", `/admin/api/review/${id}/reject`, { reviewer: "awa" });
      assertEquals(noNote.json.error.code, "REASON_NOTE_REQUIRED");
      const rejected = await gw.admin("POST", `/admin/api/review/${id}/reject`, {
        reviewer: "awa",
        note: "unknown supplier",
      });
      assertEquals([rejected.json.data.item.status, rejected.json.data.item.failureReason], [
        "FAILED",
        "REJECTED_BY_REVIEW",
      ]);
      assertEquals(await usdtBalance(gw, m.merchantId, false), before);
      assert((await eventTypes(gw, m.merchantId)).includes("payout.failed"));
    });

    await t.step("another merchant's id, an unknown id, a malformed id: NOT_FOUND", async () => {
      const other = await gw.createMerchant("Other");
      const mine = (await gw.request("GET", "/v1/payout", { key })).json.data.items[0].transactionId;
      for (const id of [mine, "pout_00000000000000000000000000", "pout_%00", "x"]) {
        const res = await gw.request("GET", `/v1/payout/${id}`, { key: other.keys.liveSecret });
        assertEquals(res.status, 404, id);
      }
      const sandbox = await gw.request("GET", `/v1/payout/${mine}`, { key: m.keys.testSecret });
      assertEquals(sandbox.status, 404);
    });

    await t.step("/v1/transfers is the same payout under its canonical name", async () => {
      const res = await gw.request("POST", "/v1/transfers", {
        key,
        body: { amount: "5", destinationAddress: dest },
        headers: idem(),
      });
      assertEquals(res.status, 201);
      assertMatch(res.json.data.transactionId, /^pout_/);
    });

    await t.step("KYB pending: live payouts are KYB_REQUIRED; publishable keys cannot pay out", async () => {
      const pending = await gw.createMerchant("Pending", "PENDING");
      const res = await gw.request("POST", "/v1/payout", {
        key: pending.keys.liveSecret,
        body: { amount: "5", destinationAddress: dest },
        headers: idem(),
      });
      assertEquals(res.json.error.code, "KYB_REQUIRED");
      const pk = await gw.request("POST", "/v1/payout", {
        key: m.keys.livePublishable,
        body: { amount: "5", destinationAddress: dest },
        headers: idem(),
      });
      assertEquals(pk.status, 403);
    });
  } finally {
    await gw.close();
  }
});

Deno.test("100 concurrent payouts against one balance accept exactly what it covers", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Burst Shop");
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
      rateLimits: { "POST /v1/payout": 1000, default: 1000 },
    });
    const dest = randomTronAddress();
    await whitelist(gw, m.keys.liveSecret, dest, ["PAYOUT"]);
    // Each payout debits 6 (5 + 1 fee): 100 USDT covers 16 of them, with 4 left.
    await creditUsdt(gw, m.merchantId, false, "100");
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        gw.request("POST", "/v1/payout", {
          key: m.keys.liveSecret,
          body: { amount: "5", destinationAddress: dest },
          headers: idem(),
        })),
    );
    const accepted = answers.filter((a) => a.status === 201).length;
    const refused = answers.filter((a) => a.json?.error?.code === "INSUFFICIENT_BALANCE").length;
    assertEquals([accepted, refused], [16, 84], JSON.stringify(answers.find((a) => a.status >= 500)?.json));
    assertEquals(await usdtBalance(gw, m.merchantId, false), "4.000000");
    assertEquals(await inFlight(gw, false), "96.000000");
  } finally {
    await gw.close();
  }
});
