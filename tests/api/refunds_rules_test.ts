// What a refund request may be refused for, and the operator's decisions: each a clear code, nothing
// reserved or moved twice. Another merchant's or the other mode's pay-in, a pay-in not paid, bad amounts,
// the window, a rail that cannot refund, the key; approval, rejection, four eyes, auto-approval, roles.
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { OPERATOR_TEST_ENV, operatorClient } from "../operator_helpers.ts";
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

Deno.test("refund requests: refusals by ownership, mode, state, amount, window and rail", async (t) => {
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  const gw = await startTestGateway({ clock });
  const m = await roomyMerchant(gw);
  const other = await roomyMerchant(gw, "Autre boutique");
  const key = m.keys.liveSecret;
  try {
    const payin = await paidCard(gw, key, "10000");
    await paidCard(gw, key, "10000");
    const wallet = await xofWallet(gw, key, "CARD");

    await t.step("another merchant's pay-in, a malformed id, the other mode: NOT_FOUND", async () => {
      for (const [k, id] of [[other.keys.liveSecret, payin], [key, "pay_nope"], [m.keys.testSecret, payin]]) {
        const res = await askRefund(gw, k, id, { amount: "100" });
        assertEquals([res.status, res.json.error.code], [404, "NOT_FOUND"], `${id}`);
      }
      // A sandbox pay-in refunded with the live key.
      const sandbox = await gw.request("POST", "/v1/payments?sandbox=true", {
        key: m.keys.testSecret,
        body: { paymentMethod: "CARD", amount: "2000", customerName: "A", customerEmail: "a@example.com" },
      });
      const sid = sandbox.json.data.transactionId;
      await gw.request("POST", `/v1/sandbox/payments/${sid}/simulate`, { key: m.keys.testSecret });
      const live = await askRefund(gw, key, sid, {});
      assertEquals([live.status, live.json.error.code], [404, "NOT_FOUND"]);
      // The same pay-in with its own (sandbox) key is refundable, from the sandbox wallet.
      const own = await askRefund(gw, m.keys.testSecret, sid, { amount: "100" });
      assertEquals([own.status, own.json.data.isSandbox], [201, true]);
      assertEquals(await xofWallet(gw, key, "CARD"), wallet);
    });

    await t.step("a pay-in still awaiting payment: INVALID_TRANSACTION_STATUS", async () => {
      const open = await gw.request("POST", "/v1/payments", {
        key,
        body: { paymentMethod: "CARD", amount: "2000", customerName: "A", customerEmail: "a@example.com" },
      });
      const res = await askRefund(gw, key, open.json.data.transactionId, {});
      assertEquals([res.status, res.json.error.code], [400, "INVALID_TRANSACTION_STATUS"]);
    });

    await t.step("bad amounts: zero, negative, fractions of a franc, words, too many digits", async () => {
      for (const amount of ["0", "-5", "10.5", "1e3", "abc", "", "00", "99999999999999999999"]) {
        const res = await askRefund(gw, key, payin, { amount });
        assertEquals(res.status, 400, amount);
        assert(
          ["INVALID_AMOUNT", "VALIDATION_ERROR"].includes(res.json.error.code),
          `${amount}: ${res.text}`,
        );
      }
      const tooMuch = await askRefund(gw, key, payin, { amount: "10001" });
      assertEquals([tooMuch.status, tooMuch.json.error.code], [400, "REFUND_EXCEEDS_AMOUNT"]);
      for (const body of [{ amount: 100 }, { amount: "1\u0000" }, { reason: "\ud800" }, { extra: 1 }]) {
        const res = await askRefund(gw, key, payin, body);
        assertEquals(res.status, 400, JSON.stringify(body));
      }
      assertEquals(await xofWallet(gw, key, "CARD"), wallet);
      assertEquals(await inFlight(gw, "CARD"), 0);
    });

    await t.step("the Idempotency-Key: required; the same request twice is one refund", async () => {
      const none = await gw.request("POST", `/v1/payments/${payin}/refunds`, {
        key,
        body: { amount: "100" },
      });
      assertEquals(none.status, 400);
      const idem = crypto.randomUUID();
      const first = await askRefund(gw, key, payin, { amount: "100" }, idem);
      const again = await askRefund(gw, key, payin, { amount: "100" }, idem);
      assertEquals([first.status, again.status], [201, 201]);
      assertEquals(again.json.data.refundId, first.json.data.refundId);
      assertEquals(again.headers.get("idempotent-replayed"), "true");
      const other = await askRefund(gw, key, payin, { amount: "200" }, idem);
      assertEquals([other.status, other.json.error.code], [409, "IDEMPOTENCY_KEY_MISMATCH"]);
      assertEquals(await xofWallet(gw, key, "CARD"), wallet - 100);
      await gw.request("POST", `/v1/refunds/${first.json.data.refundId}/cancel`, { key });
      assertEquals(await xofWallet(gw, key, "CARD"), wallet);
    });

    await t.step("another merchant cannot read, list or cancel the refund", async () => {
      const r = (await askRefund(gw, key, payin, { amount: "300" })).json.data;
      const ok = other.keys.liveSecret;
      assertEquals((await gw.request("GET", `/v1/refunds/${r.refundId}`, { key: ok })).status, 404);
      assertEquals((await gw.request("POST", `/v1/refunds/${r.refundId}/cancel`, { key: ok })).status, 404);
      assertEquals((await gw.request("GET", "/v1/refunds", { key: ok })).json.data.items.length, 0);
      const mine = await gw.request("GET", `/v1/refunds?transactionId=${payin}&status=PENDING_APPROVAL`, {
        key,
      });
      assertEquals(mine.json.data.items.map((i: { refundId: string }) => i.refundId), [r.refundId]);
      assertEquals((await gw.request("GET", "/v1/refunds?status=NOPE", { key })).status, 400);
      await gw.request("POST", `/v1/refunds/${r.refundId}/cancel`, { key });
    });

    await t.step(
      "a USDT pay-in is refundable now (the hosted address page, refunds_usdt_test.ts)",
      async () => {
        const usdt = await gw.request("POST", "/v1/payments?sandbox=true", {
          key: m.keys.testSecret,
          body: { amount: "25" },
        });
        const id = usdt.json.data.transactionId;
        const sim = await gw.request("POST", `/v1/sandbox/payments/${id}/simulate`, {
          key: m.keys.testSecret,
        });
        assertEquals(sim.status, 200, sim.text);
        const res = await askRefund(gw, m.keys.testSecret, id, { amount: "1" });
        assertEquals(res.status, 201, res.text);
        assertEquals([res.json.data.paymentMethod, res.json.data.status], ["USDT_TRC20", "PENDING_APPROVAL"]);
      },
    );

    await t.step("past REFUND_WINDOW_DAYS (180) after payment: REFUND_WINDOW_EXPIRED", async () => {
      offsetMs = 181 * 86_400_000;
      const res = await askRefund(gw, key, payin, { amount: "100" });
      assertEquals([res.status, res.json.error.code], [400, "REFUND_WINDOW_EXPIRED"]);
      offsetMs = 0;
      assertEquals(await xofWallet(gw, key, "CARD"), wallet);
    });
  } finally {
    await gw.close();
  }
});

Deno.test("refund decisions: note, wrong state, rejection returns once, cancel racing approve, four eyes, auto-approve", async (t) => {
  const gw = await startTestGateway({ env: { ...OPERATOR_TEST_ENV, FOUR_EYES_ABOVE_XOF: "5000" } });
  const m = await roomyMerchant(gw);
  const key = m.keys.liveSecret;
  try {
    const payin = await paidCard(gw, key, "50000");
    await paidCard(gw, key, "50000");
    const wallet = await xofWallet(gw, key, "CARD");

    await t.step(
      "reject needs a note; the reservation returns once; a decided refund stays decided",
      async () => {
        const r = (await askRefund(gw, key, payin, { amount: "1000" })).json.data;
        const blank = await gw.admin("POST", `/admin/api/refunds/${r.refundId}/reject`, { note: "  " });
        assertEquals([blank.status, blank.json.error.code], [400, "REASON_NOTE_REQUIRED"]);
        const missing = await gw.admin("POST", `/admin/api/refunds/${r.refundId}/reject`, {});
        assertEquals(missing.status, 400);
        const rejected = await gw.admin("POST", `/admin/api/refunds/${r.refundId}/reject`, {
          note: "Not our order",
        });
        assertEquals([rejected.status, rejected.json.data.refund.status], [200, "REJECTED"]);
        assertEquals(rejected.json.data.refund.reviewNote, "Not our order");
        assertEquals(await xofWallet(gw, key, "CARD"), wallet);
        for (const action of ["reject", "approve"]) {
          const again = await gw.admin("POST", `/admin/api/refunds/${r.refundId}/${action}`, {
            note: "again",
          });
          assertEquals([again.status, again.json.error.code], [400, "INVALID_TRANSACTION_STATUS"]);
        }
        const cancel = await gw.request("POST", `/v1/refunds/${r.refundId}/cancel`, { key });
        assertEquals(cancel.json.error.code, "CANNOT_CANCEL");
        assertEquals(await xofWallet(gw, key, "CARD"), wallet);
        assertEquals(await eventsOf(gw, r.refundId), ["refund.created", "refund.rejected"]);
        const audit = await gw.db.query<{ action: string }>(
          "SELECT action FROM audit_records WHERE item_id = $1",
          [r.refundId],
        );
        assertEquals(audit.map((a) => a.action), ["refund.reject"]);
      },
    );

    await t.step("a viewer may look but not decide", async () => {
      const viewer = await operatorClient(gw, "viewer");
      const r = (await askRefund(gw, key, payin, { amount: "500" })).json.data;
      const queue = await viewer.call("GET", "/admin/api/refunds/review");
      assertEquals(queue.status, 200);
      assert(queue.json.data.some((i: { refund: { refundId: string } }) => i.refund.refundId === r.refundId));
      const counts = await viewer.call("GET", "/admin/api/queue");
      assertEquals(counts.json.data.counts.refundsAwaitingApproval, 1);
      const refused = await viewer.call("POST", `/admin/api/refunds/${r.refundId}/approve`, { note: "ok" });
      assertEquals(refused.status, 403);
      await gw.request("POST", `/v1/refunds/${r.refundId}/cancel`, { key });
    });

    await t.step("cancel racing approve: exactly one wins, the money moves once", async () => {
      const before = await xofWallet(gw, key, "CARD");
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        ids.push((await askRefund(gw, key, payin, { amount: "100" })).json.data.refundId);
      }
      const results = await Promise.all(ids.map((id) =>
        Promise.all([
          gw.request("POST", `/v1/refunds/${id}/cancel`, { key }),
          approve(gw, id),
        ])
      ));
      for (const [cancel, ok] of results) {
        assertEquals(
          [cancel.status === 200, ok.status === 200].filter(Boolean).length,
          1,
          cancel.text + ok.text,
        );
      }
      await runRefundJobs(gw);
      const statuses = await Promise.all(ids.map(async (id) => (await getRefund(gw, key, id)).status));
      const paid = statuses.filter((s) => s === "COMPLETED").length;
      assertEquals(paid + statuses.filter((s) => s === "CANCELLED").length, 8);
      assertEquals(await xofWallet(gw, key, "CARD"), before - paid * 100);
      assertEquals(await inFlight(gw, "CARD"), 0);
    });

    await t.step("four eyes above FOUR_EYES_ABOVE_XOF: two different reviewers", async () => {
      const r = (await askRefund(gw, key, payin, { amount: "6000" })).json.data;
      const first = await approve(gw, r.refundId);
      assertEquals([first.status, first.json.data.refund.status], [200, "PENDING_APPROVAL"]);
      assertEquals(first.json.data.approvals, { needed: 2, given: 1 });
      const same = await approve(gw, r.refundId);
      assertEquals([same.status, same.json.error.code], [403, "FORBIDDEN"]);
      const reviewer = await operatorClient(gw, "reviewer");
      const second = await reviewer.call("POST", `/admin/api/refunds/${r.refundId}/approve`, {
        note: "second",
      });
      assertEquals([second.status, second.json.data.refund.status], [200, "APPROVED"]);
      await runRefundJobs(gw);
      assertEquals((await getRefund(gw, key, r.refundId)).status, "COMPLETED");
    });

    await t.step("auto-approval below a per-merchant threshold (off by default)", async () => {
      const set = await gw.admin("PUT", `/admin/api/merchants/${m.merchantId}/refund-auto-approve`, {
        XOF: "1000",
        USDT_TRC20: null,
      });
      assertEquals(set.status, 200, set.text);
      const small = (await askRefund(gw, key, payin, { amount: "999" })).json.data;
      assertEquals([small.status, small.autoApproved], ["APPROVED", true]);
      const big = (await askRefund(gw, key, payin, { amount: "1000" })).json.data;
      assertEquals([big.status, big.autoApproved], ["PENDING_APPROVAL", false]);
      await runRefundJobs(gw);
      assertEquals((await getRefund(gw, key, small.refundId)).status, "COMPLETED");
      assertEquals(await eventsOf(gw, small.refundId), [
        "refund.created",
        "refund.approved",
        "refund.completed",
      ]);
      await gw.request("POST", `/v1/refunds/${big.refundId}/cancel`, { key });
    });
  } finally {
    await gw.close();
  }
});
