// A payout or withdrawal the hot wallet cannot send says why (GET), shows in the treasury view and in
// /metrics, becomes an alarm (metrics and log) past OUTBOUND_WAIT_ALARM_SECONDS, and an operator can
// cancel it with its money returned: never one already signed, never twice, never without a note.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import type { Clock } from "../../domain/clock.ts";
import { sendOutbound } from "../../domain/money_out/send.ts";
import { hotWallet } from "../../domain/treasury/hot_wallet.ts";
import { handleOutboundSweep } from "../../jobs/money_out.ts";
import { assert, assertEquals } from "../assert.ts";
import { ADMIN_TOKEN, startTestGateway } from "../helpers.ts";
import {
  creditUsdt,
  eventTypes,
  idem,
  randomTronAddress,
  usdtBalance,
  whitelist,
} from "../money_out_helpers.ts";

/** A clock the test moves: starts now, `advance(seconds)`. */
function movableClock() {
  let offset = 0;
  const clock: Clock & { advance(seconds: number): void } = {
    now: () => new Date(Date.now() + offset),
    advance: (seconds) => offset += seconds * 1000,
  };
  return clock;
}

async function setup() {
  const clock = movableClock();
  const gw = await startTestGateway({ clock, env: { OUTBOUND_WAIT_ALARM_SECONDS: "600" } });
  const m = await gw.createMerchant("Waiting Shop");
  gw.devnet.mine(1);
  await scanChain(gw.deps);
  await creditUsdt(gw, m.merchantId, false, "100");
  const dest = randomTronAddress();
  await whitelist(gw, m.keys.liveSecret, dest, ["PAYOUT", "WITHDRAWAL"]);
  const payout = async (amount: string) => {
    const res = await gw.request("POST", "/v1/payout", {
      key: m.keys.liveSecret,
      body: { amount, destinationAddress: dest },
      headers: idem(),
    });
    assertEquals(res.status, 201, res.text);
    return res.json.data.transactionId as string;
  };
  const metric = async (name: string) => {
    const res = await gw.request("GET", "/metrics", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const line = res.text.split("\n").find((l) => l.startsWith(`${name} `));
    return line ? Number(line.split(" ")[1]) : undefined;
  };
  return { gw, m, clock, dest, payout, metric };
}

Deno.test("a waiting payout says why, shows in the treasury and /metrics, and is an alarm past the threshold", async () => {
  const { gw, m, clock, payout, metric } = await setup();
  try {
    assertEquals(await metric("gateway_outbound_waiting"), 0);
    const id = await payout("20"); // the hot wallet holds no USDT and nothing waits to be swept
    assertEquals(await sendOutbound(gw.deps, id), "waiting-for-hot-wallet");
    const read = (await gw.request("GET", `/v1/payout/${id}`, { key: m.keys.liveSecret })).json.data;
    assertEquals([read.status, read.waiting.reason], ["PROCESSING", "HOT_WALLET_FUNDS"]);
    const since = read.waiting.since;
    assertEquals(await metric("gateway_outbound_waiting"), 1);
    assertEquals(await metric("gateway_outbound_waiting_alarm"), 0);

    // Trying again later keeps the first moment it started waiting.
    clock.advance(700);
    assertEquals(await sendOutbound(gw.deps, id), "waiting-for-hot-wallet");
    const later = (await gw.request("GET", `/v1/payout/${id}`, { key: m.keys.liveSecret })).json.data;
    assertEquals(later.waiting.since, since);
    assert((await metric("gateway_outbound_waiting_oldest_seconds"))! >= 700);
    assertEquals(await metric("gateway_outbound_waiting_alarm"), 1);
    const treasury = (await gw.admin("GET", "/admin/api/treasury")).json.data.waitingToSend;
    assertEquals([treasury.count, treasury.alarm], [1, true]);
    assertEquals(treasury.items[0].id, id);
    assertEquals(treasury.items[0].amount, "20.000000");
    assert(treasury.items[0].waitingSeconds >= 700);
    // The cron's pass says it in the log, as an error an operator's alerting picks up.
    await handleOutboundSweep(gw.deps);
    const alarm = gw.logLines.find((l) => l.msg === "payout waits too long to be sent");
    assertEquals(alarm?.level, "error");
    assertEquals(alarm?.id, id);

    // The hot wallet is refilled: the payout goes, and waits no more. (The clock comes back to the
    // devnet's: a transaction signed against its head must not look expired already.)
    clock.advance(-700);
    gw.devnet.fund(hotWallet(gw.deps.config, false).address, { usdt: 50_000_000n, trx: 100_000_000n });
    assertEquals(await sendOutbound(gw.deps, id), "sent");
    const sent = (await gw.request("GET", `/v1/payout/${id}`, { key: m.keys.liveSecret })).json.data;
    assertEquals([sent.status, sent.waiting], ["BROADCAST", null]);
    assertEquals(await metric("gateway_outbound_waiting"), 0);
  } finally {
    await gw.close();
  }
});

Deno.test("an operator cancels an unsent payout or approved withdrawal: money back once, never a signed one", async (t) => {
  const { gw, m, payout } = await setup();
  const cancel = (
    id: string,
    body: Record<string, unknown> = { reviewer: "awa", note: "hot wallet empty" },
  ) => gw.admin("POST", `/admin/api/review/${id}/cancel`, body);
  try {
    await t.step("a waiting payout: FAILED, CANCELLED_BY_OPERATOR, payout.failed, money back", async () => {
      const id = await payout("20");
      assertEquals(await sendOutbound(gw.deps, id), "waiting-for-hot-wallet");
      assertEquals(await usdtBalance(gw, m.merchantId, false), "79.000000");
      assertEquals((await cancel(id, { reviewer: "awa" })).json.error.code, "REASON_NOTE_REQUIRED");
      const done = await cancel(id);
      assertEquals(done.status, 200, done.text);
      assertEquals(done.json.data.item.status, "FAILED");
      assertEquals(done.json.data.item.failureReason, "CANCELLED_BY_OPERATOR");
      assertEquals(await usdtBalance(gw, m.merchantId, false), "100.000000");
      assert((await eventTypes(gw, m.merchantId)).includes("payout.failed"));
      const history = await gw.admin("GET", `/admin/api/review/${id}`);
      assertEquals(history.json.data.decisions.map((d: { decision: string }) => d.decision), ["CANCEL"]);
      // Once only: the money is not returned twice, and the sender leaves it alone.
      assertEquals((await cancel(id)).json.error.code, "CANNOT_CANCEL");
      assertEquals(await usdtBalance(gw, m.merchantId, false), "100.000000");
      assertEquals(await sendOutbound(gw.deps, id), "nothing-to-do");
    });

    await t.step("an approved USDT withdrawal that cannot be sent", async () => {
      const w = await gw.request("POST", "/v1/withdrawals", {
        key: m.keys.liveSecret,
        body: { amount: "15" },
        headers: idem(),
      });
      const id = w.json.data.id;
      assertEquals((await cancel(id)).json.error.code, "CANNOT_CANCEL"); // in review: reject it instead
      await gw.admin("POST", `/admin/api/review/${id}/approve`, { reviewer: "awa" });
      assertEquals(await sendOutbound(gw.deps, id), "waiting-for-hot-wallet");
      const done = await cancel(id);
      assertEquals([done.json.data.item.status, done.json.data.item.failureReason], [
        "FAILED",
        "CANCELLED_BY_OPERATOR",
      ]);
      assertEquals(await usdtBalance(gw, m.merchantId, false), "100.000000");
    });

    await t.step("a signed payout cannot be cancelled: it may land", async () => {
      gw.devnet.fund(hotWallet(gw.deps.config, false).address, { usdt: 10_000_000n, trx: 100_000_000n });
      const id = await payout("6");
      assertEquals(await sendOutbound(gw.deps, id), "sent");
      const refused = await cancel(id);
      assertEquals([refused.status, refused.json.error.code], [400, "CANNOT_CANCEL"]);
      assertEquals(await usdtBalance(gw, m.merchantId, false), "93.000000");
    });

    await t.step("a cancel racing the sender: exactly one wins, the money is right", async () => {
      const id = await payout("5"); // 4 USDT free beyond the signed 6; 9 once funded: it may be signed
      gw.devnet.fund(hotWallet(gw.deps.config, false).address, { usdt: 5_000_000n });
      const [sent, cancelled] = await Promise.all([sendOutbound(gw.deps, id), cancel(id)]);
      const row =
        (await gw.db.query<{ status: string }>(`SELECT status FROM outbound_transfers WHERE id = $1`, [
          id,
        ]))[0];
      const signed = await gw.db.query(`SELECT 1 FROM chain_outgoing WHERE outbound_id = $1`, [id]);
      if (cancelled.status === 200) {
        assertEquals([row.status, signed.length, sent], ["FAILED", 0, "nothing-to-do"]);
        assertEquals(await usdtBalance(gw, m.merchantId, false), "93.000000");
      } else {
        assertEquals([cancelled.json.error.code, row.status, signed.length], [
          "CANNOT_CANCEL",
          "BROADCAST",
          1,
        ]);
        assertEquals(await usdtBalance(gw, m.merchantId, false), "87.000000");
      }
    });

    await t.step("bad calls: no token, unknown or malformed id", async () => {
      const anonymous = await gw.request("POST", "/admin/api/review/pout_00000000000000000000000000/cancel", {
        body: { reviewer: "x", note: "y" },
      });
      assertEquals(anonymous.status, 401);
      const withKey = await gw.request("POST", "/admin/api/review/pout_00000000000000000000000000/cancel", {
        key: m.keys.liveSecret,
        body: { reviewer: "x", note: "y" },
      });
      assertEquals(withKey.status, 401);
      assertEquals((await cancel("pout_00000000000000000000000000")).status, 404);
      assertEquals((await cancel("pay_00000000000000000000000000")).status, 404);
      assertEquals((await cancel("pout_x")).status, 404);
      const hostile = await cancel("pout_00000000000000000000000000", {
        reviewer: "a\u0000b",
        note: "\ud800",
      });
      assertEquals(hostile.status, 400);
    });
  } finally {
    await gw.close();
  }
});
