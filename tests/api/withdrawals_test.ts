// Withdrawals through the whole app: the primary address, review, reject, cancel, the race between a
// cancel and an approval; AML screening; sandbox payouts on simulated confirmations.
import { manualClock } from "../../domain/clock.ts";
import { sendOutbound } from "../../domain/money_out/send.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import {
  creditUsdt,
  eventTypes,
  idem,
  inFlight,
  randomTronAddress,
  usdtBalance,
  whitelist,
} from "../money_out_helpers.ts";

Deno.test("withdrawals: review, reject, cancel, races", async (t) => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Withdrawing Shop");
    const key = m.keys.liveSecret;
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
      rateLimits: { "POST /v1/withdrawals": 1000 },
    });
    await creditUsdt(gw, m.merchantId, false, "500");
    const withdraw = (body: unknown) => gw.request("POST", "/v1/withdrawals", { key, body, headers: idem() });

    await t.step(
      "no WITHDRAWAL address yet: NO_WHITELISTED_ADDRESS; unknown id: ADDRESS_NOT_FOUND",
      async () => {
        await whitelist(gw, key, randomTronAddress(), ["PAYOUT"]);
        assertEquals((await withdraw({ amount: "50" })).json.error.code, "NO_WHITELISTED_ADDRESS");
        for (const whitelistAddressId of ["wla_00000000000000000000000000", "garbage\u0001"]) {
          assertEquals(
            (await withdraw({ amount: "50", whitelistAddressId })).json.error.code,
            "ADDRESS_NOT_FOUND",
          );
        }
        assertEquals(await usdtBalance(gw, m.merchantId, false), "500.000000");
      },
    );

    const primary = randomTronAddress();
    const primaryId = await whitelist(gw, key, primary, ["WITHDRAWAL"]);
    const second = randomTronAddress();
    const secondId = await whitelist(gw, key, second, ["WITHDRAWAL"]);

    await t.step("a withdrawal goes to the primary address and waits in PENDING_REVIEW", async () => {
      const res = await withdraw({ amount: "100" });
      assertEquals(res.status, 201);
      const d = res.json.data;
      assertMatch(d.id, /^wdr_/);
      assertEquals([d.amount, d.fee, d.netAmount, d.destinationAddress, d.status], [
        "100.000000",
        "1.000000",
        "99.000000",
        primary,
        "PENDING_REVIEW",
      ]);
      assertEquals(await usdtBalance(gw, m.merchantId, false), "400.000000");
      assertEquals(
        (await withdraw({ amount: "10", whitelistAddressId: secondId })).json.data.destinationAddress,
        second,
      );
      assertEquals(await eventTypes(gw, m.merchantId), ["withdrawal.requested", "withdrawal.requested"]);
      assert(primaryId !== secondId);
    });

    await t.step("cancel returns the money at once; a second cancel is CANNOT_CANCEL", async () => {
      const id = (await withdraw({ amount: "20" })).json.data.id;
      assertEquals(await usdtBalance(gw, m.merchantId, false), "370.000000");
      const cancelled = await gw.request("DELETE", `/v1/withdrawals/${id}`, { key });
      assertEquals(cancelled.json.data.status, "CANCELLED");
      assertEquals(await usdtBalance(gw, m.merchantId, false), "390.000000");
      const again = await gw.request("DELETE", `/v1/withdrawals/${id}`, { key });
      assertEquals(again.json.error.code, "CANNOT_CANCEL");
      assertEquals(await usdtBalance(gw, m.merchantId, false), "390.000000");
    });

    await t.step("approve: APPROVED with withdrawal.approved; then cancel is CANNOT_CANCEL", async () => {
      const id = (await withdraw({ amount: "30" })).json.data.id;
      const approved = await gw.admin("POST", `/admin/api/review/${id}/approve`, { reviewer: "ops-1" });
      assertEquals(approved.json.data.item.status, "APPROVED");
      assert((await eventTypes(gw, m.merchantId)).includes("withdrawal.approved"));
      const cancel = await gw.request("DELETE", `/v1/withdrawals/${id}`, { key });
      assertEquals(cancel.json.error.code, "CANNOT_CANCEL");
      const reject = await gw.admin("POST", `/admin/api/review/${id}/reject`, {
        reviewer: "ops",
        note: "late",
      });
      assertEquals(reject.json.error.code, "WITHDRAWAL_NOT_PENDING_REVIEW");
    });

    await t.step("reject needs a note, returns the money, and records who and why", async () => {
      const id = (await withdraw({ amount: "40" })).json.data.id;
      const before = await usdtBalance(gw, m.merchantId, false);
      for (const body of [{ reviewer: "ops-2" }, { reviewer: "ops-2", note: "   " }]) {
        const res = await gw.admin("POST", `/admin/api/review/${id}/reject`, body);
        assertEquals(res.json.error.code, "REASON_NOTE_REQUIRED");
      }
      const res = await gw.admin("POST", `/admin/api/review/${id}/reject`, {
        reviewer: "ops-2",
        note: "KYC mismatch",
      });
      assertEquals(res.json.data.item.status, "REJECTED");
      assertEquals(await usdtBalance(gw, m.merchantId, false), (Number(before) + 40).toFixed(6));
      const history = await gw.admin("GET", `/admin/api/review/${id}`);
      assertEquals(
        history.json.data.decisions.map((d: { decision: string; note: string }) => [d.decision, d.note]),
        [[
          "REJECT",
          "KYC mismatch",
        ]],
      );
    });

    await t.step("a cancel racing an approval: exactly one wins, the money is right", async () => {
      for (let round = 0; round < 10; round++) {
        const id = (await withdraw({ amount: "5" })).json.data.id;
        const before = Number(await usdtBalance(gw, m.merchantId, false));
        const [cancel, approve] = await Promise.all([
          gw.request("DELETE", `/v1/withdrawals/${id}`, { key }),
          gw.admin("POST", `/admin/api/review/${id}/approve`, { reviewer: "racer" }),
        ]);
        const wins = [cancel.status === 200, approve.status === 200].filter(Boolean).length;
        assertEquals(wins, 1, `round ${round}: ${cancel.status} ${approve.status}`);
        const after = Number(await usdtBalance(gw, m.merchantId, false));
        assertEquals(after, cancel.status === 200 ? before + 5 : before);
      }
    });

    await t.step("list, retrieve, another merchant's id", async () => {
      const list = await gw.request("GET", "/v1/withdrawals?limit=100", { key });
      assert(list.json.data.meta.total >= 14);
      const pending = await gw.request("GET", "/v1/withdrawals?status=PENDING_REVIEW", { key });
      assert(pending.json.data.items.every((w: { status: string }) => w.status === "PENDING_REVIEW"));
      const id = list.json.data.items[0].id;
      const other = await gw.createMerchant("Other");
      assertEquals(
        (await gw.request("GET", `/v1/withdrawals/${id}`, { key: other.keys.liveSecret })).status,
        404,
      );
      assertEquals(
        (await gw.request("DELETE", `/v1/withdrawals/${id}`, { key: other.keys.liveSecret })).status,
        404,
      );
    });

    await t.step("too little balance or a tiny amount: its code, nothing reserved", async () => {
      const before = await usdtBalance(gw, m.merchantId, false);
      assertEquals((await withdraw({ amount: "100000" })).json.error.code, "INSUFFICIENT_BALANCE");
      assertEquals((await withdraw({ amount: "4" })).json.error.code, "AMOUNT_TOO_SMALL");
      assertEquals((await withdraw({ amount: "5.0000001" })).json.error.code, "INVALID_AMOUNT");
      const missing = await gw.request("POST", "/v1/withdrawals", { key, body: { amount: "10" } });
      assertEquals(missing.json.error.code, "MISSING_IDEMPOTENCY_KEY");
      assertEquals(await usdtBalance(gw, m.merchantId, false), before);
    });
  } finally {
    await gw.close();
  }
});

Deno.test("AML screening: listed destinations are AML_BLOCKED with aml.flagged; no list answer fails closed", async () => {
  const dir = await Deno.makeTempDir();
  const listed = randomTronAddress();
  await Deno.writeTextFile(`${dir}/blocked.txt`, `# sanctioned\n${listed}\n`);
  const gw = await startTestGateway({ env: { AML_BLOCKLIST_PATH: `${dir}/blocked.txt` } });
  try {
    const m = await gw.createMerchant("Screened Shop");
    const key = m.keys.liveSecret;
    await creditUsdt(gw, m.merchantId, false, "100");
    await whitelist(gw, key, listed, ["PAYOUT", "WITHDRAWAL"]);
    const payout = await gw.request("POST", "/v1/payout", {
      key,
      body: { amount: "10", destinationAddress: listed },
      headers: idem(),
    });
    assertEquals([payout.status, payout.json.error.code], [403, "AML_BLOCKED"]);
    const withdrawal = await gw.request("POST", "/v1/withdrawals", {
      key,
      body: { amount: "10" },
      headers: idem(),
    });
    assertEquals(withdrawal.json.error.code, "AML_BLOCKED");
    const estimate = await gw.request("POST", "/v1/payout/estimate", {
      key,
      body: { amount: "10", destinationAddress: listed },
    });
    assertEquals(estimate.json.error.code, "AML_BLOCKED");
    assertEquals(await eventTypes(gw, m.merchantId), ["aml.flagged", "aml.flagged"]);
    assertEquals(await usdtBalance(gw, m.merchantId, false), "100.000000");
    assertEquals(await inFlight(gw, false), "0.000000");

    await Deno.remove(`${dir}/blocked.txt`);
    const clear = randomTronAddress();
    await whitelist(gw, key, clear, ["PAYOUT"]);
    const down = await gw.request("POST", "/v1/payout", {
      key,
      body: { amount: "10", destinationAddress: clear },
      headers: idem(),
    });
    assertEquals([down.status, down.json.error.code], [503, "AML_SCREENING_UNAVAILABLE"]);
    assertEquals(await usdtBalance(gw, m.merchantId, false), "100.000000");
  } finally {
    await gw.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sandbox payouts and withdrawals move through the same states on simulated confirmations", async () => {
  const clock = manualClock(new Date());
  const gw = await startTestGateway({ clock });
  try {
    const m = await gw.createMerchant("Sandbox Shop");
    const key = m.keys.testSecret;
    await creditUsdt(gw, m.merchantId, true, "50");
    const dest = randomTronAddress();
    await whitelist(gw, key, dest, ["PAYOUT", "WITHDRAWAL"]);
    const res = await gw.request("POST", "/v1/payout", {
      key,
      body: { amount: "10", destinationAddress: dest },
      headers: idem(),
    });
    assertEquals(res.status, 201);
    const id = res.json.data.transactionId;
    clock.advance(1000);
    assertEquals(await sendOutbound(gw.deps, id), "simulated");
    const sent = await gw.request("GET", `/v1/payout/${id}`, { key });
    assertEquals(sent.json.data.status, "BROADCAST");
    assertMatch(sent.json.data.txHash, /^sandbox_[0-9a-f]{64}$/);
    assertEquals(await sendOutbound(gw.deps, id), "nothing-to-do");
    clock.advance(60_000);
    assertEquals(await sendOutbound(gw.deps, id), "simulated");
    const done = await gw.request("GET", `/v1/payout/${id}`, { key });
    assertEquals(done.json.data.status, "CONFIRMED");
    assertEquals(await usdtBalance(gw, m.merchantId, true), "39.000000");
    assertEquals(await inFlight(gw, true), "0.000000");
    assertEquals(await usdtBalance(gw, m.merchantId, false), "0.000000");
    const payoutEvents = (await eventTypes(gw, m.merchantId)).filter((e) => e.startsWith("payout."));
    // requested and approved share their instant (one transaction), so only their set is ordered.
    assertEquals(payoutEvents.slice(0, 2).sort(), ["payout.approved", "payout.requested"]);
    assertEquals(payoutEvents.slice(2), ["payout.broadcast", "payout.confirmed"]);
    // The live key sees none of it.
    assertEquals((await gw.request("GET", `/v1/payout/${id}`, { key: m.keys.liveSecret })).status, 404);
  } finally {
    await gw.close();
  }
});
