// Four eyes (issue 22): above the threshold an approval needs two different reviewers (the first is
// recorded, the item waits; the same person, or the token twice, cannot give both), a bank withdrawal's
// second approval is its completion, and 50 concurrent approvals of one item decide it once.
import { manualClock } from "../../domain/clock.ts";
import { verifyAuditChain } from "../../domain/audit/trail.ts";
import { assert, assertEquals } from "../assert.ts";
import { withGateway } from "../helpers.ts";
import {
  creditUsdt,
  creditWallet,
  idem,
  inFlight,
  randomTronAddress,
  whitelist,
} from "../money_out_helpers.ts";
import { OPERATOR_TEST_ENV, operatorClient } from "../operator_helpers.ts";

// Two 50,000 USDT withdrawals in a day: above the default plan cap (PLAN_MONEY_OUT_DAILY_USDT), so it is raised.
const ENV = {
  ...OPERATOR_TEST_ENV,
  FOUR_EYES_ABOVE_XOF: "100000",
  FIAT_DESTINATION_COOLDOWN_SECONDS: "0",
  PLAN_MONEY_OUT_DAILY_USDT: "1000000",
};

type Decision = { decision: string; reviewer: string };

Deno.test("above the threshold two different reviewers approve; the first one cannot give the second", async () => {
  await withGateway(async (gw) => {
    const m = await gw.createMerchant("Big Spender");
    const key = m.keys.liveSecret;
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
      rateLimits: { "POST /v1/withdrawals": 1000 },
    });
    await creditUsdt(gw, m.merchantId, false, "200000");
    await whitelist(gw, key, randomTronAddress(), ["WITHDRAWAL"]);
    const withdraw = async (amount: string) =>
      (await gw.request("POST", "/v1/withdrawals", { key, body: { amount }, headers: idem() })).json.data
        .id as string;
    const awa = await operatorClient(gw, "reviewer");
    const moussa = await operatorClient(gw, "reviewer");
    const viewer = await operatorClient(gw, "viewer");

    const small = await withdraw("50000");
    const one = await awa.call("POST", `/admin/api/review/${small}/approve`, {});
    assertEquals([one.json.data.item.status, one.json.data.approvals], ["APPROVED", {
      needed: 1,
      given: 0,
      by: [],
    }]);

    const big = await withdraw("50000.01");
    const queue = (await viewer.call("GET", "/admin/api/review")).json.data;
    assertEquals(queue.find((q: { item: { id: string } }) => q.item.id === big).approvals.needed, 2);
    const first = await awa.call("POST", `/admin/api/review/${big}/approve`, { note: "checked the invoice" });
    assertEquals([first.status, first.json.data.item.status, first.json.data.approvals], [
      200,
      "PENDING_REVIEW",
      {
        needed: 2,
        given: 1,
        by: [awa.operator.email],
      },
    ]);
    const same = await awa.call("POST", `/admin/api/review/${big}/approve`, {});
    assertEquals([same.status, same.json.error.code, same.json.error.cause], [
      403,
      "FORBIDDEN",
      "SAME_APPROVER",
    ]);
    const byViewer = await viewer.call("POST", `/admin/api/review/${big}/approve`, {});
    assertEquals(byViewer.json.error.cause, "INSUFFICIENT_ROLE");
    const second = await moussa.call("POST", `/admin/api/review/${big}/approve`, { note: "ok" });
    assertEquals([second.status, second.json.data.item.status], [200, "APPROVED"]);
    const story = (await viewer.call("GET", `/admin/api/review/${big}`)).json.data;
    assertEquals(story.decisions.map((d: Decision) => [d.decision, d.reviewer]), [
      ["FIRST_APPROVAL", awa.operator.email],
      ["APPROVE", moussa.operator.email],
    ]);
    const trail = (await viewer.call("GET", `/admin/api/audit?itemId=${big}`)).json.data.items;
    assertEquals(trail.map((r: { action: string; actor: { label: string } }) => [r.action, r.actor.label]), [
      ["withdrawal.first_approval", awa.operator.email],
      ["withdrawal.approve", moussa.operator.email],
    ]);

    // A rejection needs one reviewer, even after a first approval.
    const third = await withdraw("60000");
    await awa.call("POST", `/admin/api/review/${third}/approve`, {});
    const rejected = await awa.call("POST", `/admin/api/review/${third}/reject`, { note: "changed my mind" });
    assertEquals(rejected.json.data.item.status, "REJECTED");
    // The token counts as one person: a signed-in reviewer and the token make two.
    const fourth = await withdraw("70000");
    await gw.admin("POST", `/admin/api/review/${fourth}/approve`, { reviewer: "automation" });
    const tokenAgain = await gw.admin("POST", `/admin/api/review/${fourth}/approve`, { reviewer: "someone" });
    assertEquals(tokenAgain.json.error.cause, "SAME_APPROVER");
    assertEquals(
      (await awa.call("POST", `/admin/api/review/${fourth}/approve`, {})).json.data.item.status,
      "APPROVED",
    );
    assertEquals((await verifyAuditChain(gw.deps)).ok, true);
  }, { env: ENV })();
});

Deno.test("a large bank withdrawal: approved first by one reviewer, completed by another", async () => {
  await withGateway(async (gw) => {
    const m = await gw.createMerchant("Bank Payer");
    const key = m.keys.liveSecret;
    await creditWallet(gw, m.merchantId, false, "CARD", "1000000");
    const bank = await gw.request("POST", "/v1/merchants/fiat-destinations", {
      key,
      body: {
        kind: "BANK",
        bankName: "Banque Atlantique",
        bankAccountName: "Bank Payer SARL",
        bankIban: "DE89370400440532013000",
      },
    });
    assertEquals(bank.status, 201, bank.text);
    const withdraw = async (amount: string) =>
      (await gw.request("POST", "/v1/withdrawals", {
        key,
        body: { amount, currency: "XOF", rail: "CARD", fiatDestinationId: bank.json.data.id },
        headers: idem(),
      })).json.data.id as string;
    const awa = await operatorClient(gw, "reviewer");
    const moussa = await operatorClient(gw, "admin");
    const w = await withdraw("150000");
    const early = await moussa.call("POST", `/admin/api/review/${w}/complete-fiat`, { providerRef: "BA-1" });
    assertEquals([early.status, early.json.error.cause], [403, "FIRST_APPROVAL_REQUIRED"]);
    const first = await awa.call("POST", `/admin/api/review/${w}/approve`, {});
    assertEquals([first.json.data.item.status, first.json.data.approvals.given], ["PENDING_REVIEW", 1]);
    const same = await awa.call("POST", `/admin/api/review/${w}/complete-fiat`, { providerRef: "BA-1" });
    assertEquals(same.json.error.cause, "SAME_APPROVER");
    const approveAgain = await moussa.call("POST", `/admin/api/review/${w}/approve`, {});
    assertEquals(approveAgain.json.error.code, "WITHDRAWAL_APPROVE_NOT_SUPPORTED_FOR_FIAT");
    const done = await moussa.call("POST", `/admin/api/review/${w}/complete-fiat`, {
      providerRef: "BA-2026-7",
    });
    assertEquals([done.status, done.json.data.item.status], [200, "CONFIRMED"]);
    // Below the XOF threshold, one reviewer completes it and approve stays refused.
    const smallOne = await withdraw("90000");
    const refused = await awa.call("POST", `/admin/api/review/${smallOne}/approve`, {});
    assertEquals(refused.json.error.code, "WITHDRAWAL_APPROVE_NOT_SUPPORTED_FOR_FIAT");
    const quick = await awa.call("POST", `/admin/api/review/${smallOne}/complete-fiat`, {
      providerRef: "BA-8",
    });
    assertEquals(quick.json.data.item.status, "CONFIRMED");
  }, { env: ENV })();
});

Deno.test("50 concurrent approvals of one item decide it once (one reviewer, then two)", async () => {
  const clock = manualClock(new Date(Math.floor(Date.now() / 30_000) * 30_000 + 1000));
  await withGateway(async (gw) => {
    const m = await gw.createMerchant("Racer");
    const key = m.keys.liveSecret;
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
      rateLimits: { "POST /v1/withdrawals": 1000 },
    });
    await creditUsdt(gw, m.merchantId, false, "200000");
    await whitelist(gw, key, randomTronAddress(), ["WITHDRAWAL"]);
    const withdraw = async (amount: string) =>
      (await gw.request("POST", "/v1/withdrawals", { key, body: { amount }, headers: idem() })).json.data
        .id as string;
    const decisions = async (id: string) =>
      (await gw.db.query<{ decision: string }>(
        "SELECT decision FROM review_decisions WHERE outbound_id = $1 ORDER BY id",
        [id],
      )).map((d) => d.decision);

    const small = await withdraw("100");
    const reserved = await inFlight(gw, false);
    const storm = await Promise.all(
      Array.from(
        { length: 50 },
        () => gw.admin("POST", `/admin/api/review/${small}/approve`, { reviewer: "bot" }),
      ),
    );
    assertEquals(storm.filter((r) => r.status === 200).length, 1);
    assert(storm.every((r) => r.status === 200 || r.json.error.code === "WITHDRAWAL_NOT_PENDING_REVIEW"));
    assertEquals(await decisions(small), ["APPROVE"]);
    assertEquals(gw.enqueued.filter((e) => e.message.type === "outbound.send").length, 1);
    assertEquals(await inFlight(gw, false), reserved);

    const big = await withdraw("90000");
    const awa = await operatorClient(gw, "reviewer");
    const moussa = await operatorClient(gw, "reviewer");
    const racing = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) => (i % 2 ? awa : moussa).call("POST", `/admin/api/review/${big}/approve`, {}),
      ),
    );
    assertEquals(racing.filter((r) => r.status === 200).length, 2, racing.map((r) => r.status).join());
    assert(racing.every((r) => r.status < 500));
    assertEquals(await decisions(big), ["FIRST_APPROVAL", "APPROVE"]);
    assertEquals(gw.enqueued.filter((e) => e.message.type === "outbound.send").length, 2);
    const check = await verifyAuditChain(gw.deps);
    assert(check.ok);
  }, { clock, env: ENV })();
});

Deno.test("hostile notes: NUL bytes and 100 KB refused cleanly, nothing decided", async () => {
  await withGateway(async (gw) => {
    const m = await gw.createMerchant("Noted");
    const key = m.keys.liveSecret;
    await creditUsdt(gw, m.merchantId, false, "500");
    await whitelist(gw, key, randomTronAddress(), ["WITHDRAWAL"]);
    const id =
      (await gw.request("POST", "/v1/withdrawals", { key, body: { amount: "100" }, headers: idem() }))
        .json.data.id as string;
    const reviewer = await operatorClient(gw, "reviewer");
    for (const note of ["bad\u0000note", "x".repeat(100_000), "\ud800"]) {
      for (const action of ["approve", "reject"]) {
        const res = await reviewer.call("POST", `/admin/api/review/${id}/${action}`, { note });
        assertEquals(
          [res.status, res.json.error.code],
          [400, "VALIDATION_ERROR"],
          `${action} ${note.slice(0, 10)}`,
        );
      }
    }
    for (const body of [{ note: 5 }, { reviewer: ["x"] }, { note: "ok", extra: 1 }]) {
      const res = await reviewer.call("POST", `/admin/api/review/${id}/approve`, body);
      assertEquals(res.json.error.code, "VALIDATION_ERROR");
    }
    const wrongId = await reviewer.call("POST", "/admin/api/review/wdr_%00/approve", {});
    assertEquals(wrongId.status, 404);
    const still = (await reviewer.call("GET", `/admin/api/review/${id}`)).json.data;
    assertEquals([still.item.status, still.decisions], ["PENDING_REVIEW", []]);
    assertEquals((await gw.db.query("SELECT 1 FROM audit_records WHERE item_id = $1", [id])).length, 0);
  }, { env: ENV })();
});
