// A payout signed against a block only a forked node had (its reference block): every real node refuses
// it with TAPOS_ERROR. The payout must not fail for that, and must never be signed twice while the first
// transaction could still land (if the fork won): it is left to expire by the chain's head, then replaced
// once, against a healthy node's head, and paid once.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { manualClock } from "../../domain/clock.ts";
import { MAX_REFUSED_BROADCASTS, MAX_TAPOS_REPLACEMENTS, sendOutbound } from "../../domain/money_out/send.ts";
import { hotWallet } from "../../domain/treasury/hot_wallet.ts";
import type { TronResources } from "../../rails/tron/resources.ts";
import { assert, assertEquals } from "../assert.ts";
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

const USDT = 1_000_000n;

/**
 * Each test's start: a merchant holding 1000 USDT, a funded hot wallet, and a payout of `amount` to a
 * whitelisted address accepted (not yet sent); `mine` mines blocks 3 s apart and scans them.
 */
async function payoutScenario(merchantName: string, amount = "25.5") {
  const clock = manualClock(new Date());
  const gw = await startTestGateway({ clock, devnetNow: () => clock.now().getTime() });
  try {
    const m = await gw.createMerchant(merchantName);
    await creditUsdt(gw, m.merchantId, false, "1000");
    const hot = hotWallet(gw.deps.config, false);
    gw.devnet.fund(hot.address, { trx: 1_000n * USDT, usdt: 10_000n * USDT });
    gw.devnet.mine(1);
    const dest = randomTronAddress();
    await whitelist(gw, m.keys.liveSecret, dest, ["PAYOUT"]);
    const res = await gw.request("POST", "/v1/payout", {
      key: m.keys.liveSecret,
      body: { amount, destinationAddress: dest },
      headers: idem(),
    });
    assertEquals(res.status, 201, res.text);
    const id = res.json.data.transactionId as string;
    const status = async () =>
      (await gw.request("GET", `/v1/payout/${id}`, { key: m.keys.liveSecret })).json.data;
    const mine = async (blocks: number) => {
      gw.devnet.mine(blocks);
      clock.advance(blocks * 3000);
      await scanChain(gw.deps);
    };
    return { gw, clock, m, dest, id, status, mine };
  } catch (err) {
    await gw.close();
    throw err;
  }
}

/**
 * Reference blocks as a node on another fork gives them (same number, another hash), for the first
 * `forkedCount` signatures (all of them unless told); the devnet refuses such a transaction with TAPOS_ERROR.
 */
function forkedRefBlocks(real: TronResources, forkedCount = Infinity): TronResources {
  let left = forkedCount;
  return {
    ...real,
    async refBlock() {
      const head = await real.refBlock();
      if (left-- <= 0) return head;
      return { ...head, hash: head.hash.slice(0, 16) + "ab".repeat(24) };
    },
  };
}

Deno.test("a payout refused with TAPOS_ERROR is not failed: it expires, is signed anew once and paid once", async () => {
  const { gw, clock, m, dest, id, status, mine } = await payoutScenario("Fork Victim SARL");
  try {
    // The first signature takes its reference block from a node on another fork: same number, other hash.
    const deps = { ...gw.deps, tronResources: forkedRefBlocks(gw.deps.tronResources, 1) };

    // Refused by the (real) node again and again, well past the refusal limit, while it has not expired.
    for (let i = 0; i < MAX_REFUSED_BROADCASTS + 3; i++) {
      assertEquals(await sendOutbound(deps, id), "refused");
      await mine(1);
    }
    const [first] = await gw.db.query<{ tx_id: string; last_refusal_code: string; tapos_refusals: number }>(
      "SELECT tx_id, last_refusal_code, tapos_refusals FROM chain_outgoing",
    );
    assertEquals([first.last_refusal_code, first.tapos_refusals], [
      "TAPOS_ERROR",
      MAX_REFUSED_BROADCASTS + 3,
    ]);
    assertEquals((await status()).status, "PROCESSING", "not failed, not refunded");
    assertEquals(
      (await gw.db.query("SELECT 1 FROM chain_outgoing")).length,
      1,
      "nothing signed while it could land",
    );

    // The chain's head passes its expiration (60 s): it can never land, so exactly one new one is signed.
    // (A block's time is the clock's when it is mined.)
    clock.advance(60_000);
    await mine(1);
    assertEquals(await sendOutbound(deps, id), "resigned");
    const rows = await gw.db.query<{ tx_id: string; superseded: boolean }>(
      "SELECT tx_id, superseded FROM chain_outgoing ORDER BY created_at",
    );
    assertEquals(rows.map((r) => [r.tx_id, r.superseded]), [[first.tx_id, true], [rows[1].tx_id, false]]);
    const sent = await status();
    assertEquals([sent.status, sent.txHash], ["BROADCAST", rows[1].tx_id]);
    for (let i = 0; i < 3; i++) assert(await sendOutbound(deps, id) !== "resigned");

    await mine(20);
    const done = await status();
    assertEquals([done.status, done.txHash], ["CONFIRMED", rows[1].tx_id]);
    assertEquals(await gw.deps.tron.getUsdtBalance(gw.deps.config.tron.usdtContract, dest), 25_500_000n);
    assertEquals(await usdtBalance(gw, m.merchantId, false), "973.500000", "debited once (amount and fee)");
    assertEquals(await inFlight(gw, false), "0.000000");
    assertEquals((await gw.db.query("SELECT 1 FROM chain_outgoing")).length, 2, "two signatures in all");
  } finally {
    await gw.close();
  }
});

Deno.test("other refusals still fail the payout after the limit, with its money returned", async () => {
  const { gw, clock, m, id, status } = await payoutScenario("Refused SARL");
  try {
    const deps = {
      ...gw.deps,
      tron: {
        ...gw.deps.tron,
        broadcastTransaction: () => Promise.resolve({ result: false, code: "CONTRACT_VALIDATE_ERROR" }),
      },
    };
    for (let i = 0; i < MAX_REFUSED_BROADCASTS; i++) assertEquals(await sendOutbound(deps, id), "refused");
    clock.advance(90_000);
    gw.devnet.mine(1);
    assertEquals(await sendOutbound(deps, id), "failed");
    const rec = await status();
    assertEquals([rec.status, rec.failureReason], ["FAILED", "BROADCAST_REJECTED"]);
    assertEquals(await usdtBalance(gw, m.merchantId, false), "1000.000000");
  } finally {
    await gw.close();
  }
});

Deno.test("a payout whose every transaction is refused with TAPOS_ERROR is replaced at most MAX_TAPOS_REPLACEMENTS times, then fails with its money back", async () => {
  const { gw, clock, m, dest, id, status, mine } = await payoutScenario("Always Forked SARL");
  try {
    assertEquals(await usdtBalance(gw, m.merchantId, false), "973.500000", "debited (amount and fee)");

    // Every signature takes its reference block from a node on another fork: the devnet refuses each.
    const deps = { ...gw.deps, tronResources: forkedRefBlocks(gw.deps.tronResources) };

    assertEquals(await sendOutbound(deps, id), "refused", "the first transaction is refused");
    for (let replaced = 1; replaced <= MAX_TAPOS_REPLACEMENTS; replaced++) {
      await mine(1);
      assertEquals(await sendOutbound(deps, id), "refused", "refused again while it could land");
      clock.advance(61_000); // the chain's head passes its expiration
      await mine(1);
      assertEquals(await sendOutbound(deps, id), "refused", `replacement ${replaced} is refused too`);
      assertEquals((await status()).status, "PROCESSING");
    }
    const signed = await gw.db.query<{ superseded: boolean; tapos_refusals: number }>(
      "SELECT superseded, tapos_refusals FROM chain_outgoing ORDER BY created_at",
    );
    assertEquals(signed.length, MAX_TAPOS_REPLACEMENTS + 1);
    assert(signed.every((r) => r.tapos_refusals > 0));

    // The last replacement expires off chain as well: no further one; the payout fails, money back.
    clock.advance(61_000);
    await mine(1);
    assertEquals(await sendOutbound(deps, id), "failed");
    const rec = await status();
    assertEquals([rec.status, rec.failureReason], ["FAILED", "BROADCAST_REJECTED"]);
    assertEquals(await usdtBalance(gw, m.merchantId, false), "1000.000000", "amount and fee returned once");
    assertEquals(await inFlight(gw, false), "0.000000");
    assert((await eventTypes(gw, m.merchantId)).includes("payout.failed"));
    assert(gw.logLines.some((l) => l.level === "error" && String(l.msg).includes("unknown reference block")));

    // Nothing more is signed or paid, however often the sender is asked again.
    for (let i = 0; i < 3; i++) assertEquals(await sendOutbound(deps, id), "nothing-to-do");
    const after = await gw.db.query<{ superseded: boolean }>("SELECT superseded FROM chain_outgoing");
    assertEquals(after.length, MAX_TAPOS_REPLACEMENTS + 1, "no further signature");
    assert(after.every((r) => r.superseded), "no live transaction is left");
    await mine(20);
    assertEquals(
      await gw.deps.tron.getUsdtBalance(gw.deps.config.tron.usdtContract, dest),
      0n,
      "nothing paid",
    );
    assertEquals(await usdtBalance(gw, m.merchantId, false), "1000.000000");
  } finally {
    await gw.close();
  }
});

Deno.test("a BROADCAST payout whose replacements keep being refused with TAPOS_ERROR fails after the cap, money back once", async () => {
  const { gw, clock, m, dest, id, status, mine } = await payoutScenario("Lost Broadcast SARL", "10");
  try {
    assertEquals(await usdtBalance(gw, m.merchantId, false), "989.000000", "debited (amount and fee)");

    // A node takes the first transaction and then loses it (it never reaches a block): BROADCAST.
    const lost = {
      ...gw.deps,
      tron: { ...gw.deps.tron, broadcastTransaction: () => Promise.resolve({ result: true }) },
    };
    assertEquals(await sendOutbound(lost, id), "sent");
    assertEquals((await status()).status, "BROADCAST");
    // Every new signature then takes its reference block from a forked node: refused with TAPOS_ERROR.
    const deps = { ...gw.deps, tronResources: forkedRefBlocks(gw.deps.tronResources) };
    // The first expires (not TAPOS), then MAX_TAPOS_REPLACEMENTS + 1 refused signatures: MAX replaced.
    for (let i = 0; i <= MAX_TAPOS_REPLACEMENTS; i++) {
      clock.advance(61_000);
      await mine(1);
      assertEquals(await sendOutbound(deps, id), "resigned");
      assertEquals((await status()).status, "BROADCAST");
    }
    clock.advance(61_000);
    await mine(1);
    assertEquals(await sendOutbound(deps, id), "failed");
    const rec = await status();
    assertEquals([rec.status, rec.failureReason], ["FAILED", "BROADCAST_REJECTED"]);
    assertEquals(await usdtBalance(gw, m.merchantId, false), "1000.000000", "amount and fee returned once");
    assertEquals(await inFlight(gw, false), "0.000000");
    const rows = await gw.db.query<{ superseded: boolean }>("SELECT superseded FROM chain_outgoing");
    assertEquals(rows.length, MAX_TAPOS_REPLACEMENTS + 2);
    assert(rows.every((r) => r.superseded));
    assertEquals(await sendOutbound(deps, id), "nothing-to-do");
    await mine(20);
    assertEquals(
      await gw.deps.tron.getUsdtBalance(gw.deps.config.tron.usdtContract, dest),
      0n,
      "nothing paid",
    );
  } finally {
    await gw.close();
  }
});
