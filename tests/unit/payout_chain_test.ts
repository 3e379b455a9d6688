// Payouts on the devnet: exactly one transfer on chain whatever crashes, expiries or reorgs happen on
// the way; confirmed at 20 confirmations by the pay-in scanner; a transfer that fails on chain refunds.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { manualClock } from "../../domain/clock.ts";
import type { Deps } from "../../domain/deps.ts";
import { sendOutbound } from "../../domain/money_out/send.ts";
import { hotWallet } from "../../domain/treasury/hot_wallet.ts";
import type { TronClient } from "../../rails/tron/client.ts";
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import {
  creditUsdt,
  idem,
  inFlight,
  randomTronAddress,
  usdtBalance,
  whitelist,
} from "../money_out_helpers.ts";

const USDT = 1_000_000n;

async function setup(options: { hotUsdt?: bigint; hotTrx?: bigint; chainOnWallClock?: boolean } = {}) {
  const clock = manualClock(new Date());
  // The chain keeps the gateway's time unless a test wants the two apart.
  const devnetNow = options.chainOnWallClock ? undefined : () => clock.now().getTime();
  const gw = await startTestGateway({ clock, devnetNow });
  const m = await gw.createMerchant("Chain Payout Shop");
  await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
    rateLimits: { "POST /v1/payout": 1000 },
  });
  await creditUsdt(gw, m.merchantId, false, "1000");
  const hot = hotWallet(gw.deps.config, false);
  gw.devnet.fund(hot.address, {
    trx: options.hotTrx ?? 1_000n * USDT,
    usdt: options.hotUsdt ?? 10_000n * USDT,
  });
  gw.devnet.mine(1);
  const dest = randomTronAddress();
  await whitelist(gw, m.keys.liveSecret, dest, ["PAYOUT"]);
  const pay = async (amount = "25.5") => {
    const res = await gw.request("POST", "/v1/payout", {
      key: m.keys.liveSecret,
      body: { amount, destinationAddress: dest },
      headers: idem(),
    });
    if (res.status !== 201) throw new Error(res.text);
    return res.json.data.transactionId as string;
  };
  const status = async (id: string) =>
    (await gw.request("GET", `/v1/payout/${id}`, { key: m.keys.liveSecret })).json.data;
  const received = () => gw.deps.tron.getUsdtBalance(gw.deps.config.tron.usdtContract, dest);
  /** Mines `blocks` and lets the scanner follow; the manual clock moves with the chain. */
  const mine = async (blocks: number) => {
    gw.devnet.mine(blocks);
    clock.advance(blocks * 3000);
    await scanChain(gw.deps);
  };
  return { gw, m, clock, dest, pay, status, received, mine };
}

/** A TRON client whose broadcast can be made to "crash" before or after reaching the node. */
function crashingClient(gw: TestGateway, when: "before" | "after"): { deps: Deps; arm(): void } {
  let armed = false;
  const tron: TronClient = {
    ...gw.deps.tron,
    async broadcastTransaction(signed) {
      if (armed && when === "before") {
        armed = false;
        throw new Error("process killed before broadcast");
      }
      const answer = await gw.deps.tron.broadcastTransaction(signed);
      if (armed && when === "after") {
        armed = false;
        throw new Error("process killed after broadcast");
      }
      return answer;
    },
  };
  return { deps: { ...gw.deps, tron }, arm: () => (armed = true) };
}

Deno.test("payout on chain: broadcast once, confirmed at 20, ledger settled", async () => {
  const { gw, m, pay, status, received, mine } = await setup();
  try {
    const id = await pay();
    assertEquals(await sendOutbound(gw.deps, id), "sent");
    const sent = await status(id);
    assertEquals(sent.status, "BROADCAST");
    assertEquals(await sendOutbound(gw.deps, id), "already-sent");
    await mine(19);
    assertEquals((await status(id)).status, "BROADCAST"); // 19 confirmations: not yet
    await mine(1);
    const done = await status(id);
    assertEquals([done.status, done.txHash], ["CONFIRMED", sent.txHash]);
    assertEquals(await received(), 25_500_000n);
    assertEquals(await usdtBalance(gw, m.merchantId, false), "973.500000");
    assertEquals(await inFlight(gw, false), "0.000000");
  } finally {
    await gw.close();
  }
});

Deno.test("payout waits for the hot wallet: stays PROCESSING, nothing signed", async () => {
  const { gw, pay, status } = await setup({ hotUsdt: 0n });
  try {
    const id = await pay();
    assertEquals(await sendOutbound(gw.deps, id), "waiting-for-hot-wallet");
    assertEquals((await status(id)).status, "PROCESSING");
    assertEquals((await gw.db.query("SELECT tx_id FROM chain_outgoing")).length, 0);
  } finally {
    await gw.close();
  }
});

Deno.test("killed between signing and broadcast: the stored bytes are sent once", async () => {
  const { gw, pay, status, received, mine } = await setup();
  try {
    const id = await pay();
    const crash = crashingClient(gw, "before");
    crash.arm();
    await assertRejects(() => sendOutbound(crash.deps, id));
    assertEquals((await status(id)).status, "PROCESSING");
    const stored = await gw.db.query<{ tx_id: string }>("SELECT tx_id FROM chain_outgoing");
    assertEquals(stored.length, 1);
    assertEquals(await sendOutbound(gw.deps, id), "sent");
    assertEquals((await status(id)).txHash, stored[0].tx_id);
    await mine(20);
    assertEquals((await status(id)).status, "CONFIRMED");
    assertEquals(await received(), 25_500_000n);
  } finally {
    await gw.close();
  }
});

Deno.test("killed between broadcast and the state change: re-sent, known to the node, one transfer", async () => {
  const { gw, pay, status, received, mine } = await setup();
  try {
    const id = await pay();
    const crash = crashingClient(gw, "after");
    crash.arm();
    await assertRejects(() => sendOutbound(crash.deps, id));
    assertEquals((await status(id)).status, "PROCESSING");
    assertEquals(await sendOutbound(gw.deps, id), "sent"); // DUP_TRANSACTION_ERROR counts as sent
    await mine(20);
    assertEquals((await status(id)).status, "CONFIRMED");
    assertEquals(await received(), 25_500_000n);
    assertEquals((await gw.db.query("SELECT tx_id FROM chain_outgoing")).length, 1);
  } finally {
    await gw.close();
  }
});

Deno.test("a stored transaction that expired off chain is replaced, never doubled", async () => {
  const { gw, pay, status, received, mine, clock } = await setup();
  try {
    const id = await pay();
    const crash = crashingClient(gw, "before");
    crash.arm();
    await assertRejects(() => sendOutbound(crash.deps, id));
    const [old] = await gw.db.query<{ tx_id: string }>("SELECT tx_id FROM chain_outgoing");
    clock.advance(10 * 60_000); // well past the transaction's expiration...
    // ...but not by the chain's: its head has not passed it, so nothing new is signed.
    assert(await sendOutbound(gw.deps, id) !== "resigned");
    assertEquals((await gw.db.query("SELECT tx_id FROM chain_outgoing")).length, 1);
    await mine(1); // now the chain's head is past it too: it can never land
    assertEquals(await sendOutbound(gw.deps, id), "resigned");
    const now = await status(id);
    assertEquals(now.status, "BROADCAST");
    const rows = await gw.db.query<{ tx_id: string; superseded: boolean }>(
      "SELECT tx_id, superseded FROM chain_outgoing ORDER BY created_at",
    );
    assertEquals(rows.map((r) => r.superseded), [true, false]);
    assertEquals(rows[0].tx_id, old.tx_id);
    assertEquals(now.txHash, rows[1].tx_id);
    await mine(20);
    assertEquals((await status(id)).status, "CONFIRMED");
    assertEquals(await received(), 25_500_000n);
  } finally {
    await gw.close();
  }
});

Deno.test("a gateway clock two minutes ahead of the chain never pays a payout twice", async () => {
  const { gw, pay, status, received, clock } = await setup({ chainOnWallClock: true });
  try {
    const id = await pay("10");
    assertEquals(await sendOutbound(gw.deps, id), "sent");
    clock.advance(2 * 60_000); // the gateway's clock, not the chain's: its transfer is still pending
    await sendOutbound(gw.deps, id);
    gw.devnet.mine(1);
    await sendOutbound(gw.deps, id);
    gw.devnet.mine(25);
    await scanChain(gw.deps);
    assertEquals(await received(), 10_000_000n, "one transfer, not two");
    const rows = await gw.db.query("SELECT tx_id FROM chain_outgoing");
    assertEquals(rows.length, 1, "never signed twice");
    assertEquals((await status(id)).status, "CONFIRMED");
  } finally {
    await gw.close();
  }
});

Deno.test("a reorg that drops a broadcast payout: re-sent while valid, one transfer", async () => {
  const { gw, pay, status, received, mine } = await setup();
  try {
    const id = await pay();
    assertEquals(await sendOutbound(gw.deps, id), "sent");
    await mine(1);
    const [seen] = await gw.db.query<{ block_number: string | null }>(
      "SELECT block_number FROM chain_outgoing",
    );
    assertEquals(seen.block_number !== null, true);
    gw.devnet.reorg(1);
    await mine(1); // the scanner notices a fork when the next block's parent differs
    await scanChain(gw.deps); // rewound to the fork point; now it follows the new branch
    const [dropped] = await gw.db.query<{ block_number: string | null }>(
      "SELECT block_number FROM chain_outgoing",
    );
    assertEquals(dropped.block_number, null);
    assertEquals(await received(), 0n);
    assertEquals(await sendOutbound(gw.deps, id), "already-sent");
    await mine(20);
    assertEquals((await status(id)).status, "CONFIRMED");
    assertEquals(await received(), 25_500_000n);
  } finally {
    await gw.close();
  }
});

Deno.test("a payout that fails on chain (out of energy) is refunded exactly once at 20 confirmations", async () => {
  const { gw, m, pay, status, received, mine } = await setup({ hotTrx: 0n });
  try {
    const id = await pay();
    assertEquals(await sendOutbound(gw.deps, id), "sent");
    await mine(20);
    const failed = await status(id);
    assertEquals([failed.status, failed.failureReason], ["FAILED", "CHAIN_OUT_OF_ENERGY"]);
    assertEquals(await received(), 0n);
    assertEquals(await usdtBalance(gw, m.merchantId, false), "1000.000000");
    assertEquals(await inFlight(gw, false), "0.000000");
    await mine(5);
    assertEquals(await usdtBalance(gw, m.merchantId, false), "1000.000000");
  } finally {
    await gw.close();
  }
});

Deno.test("two payouts of the same amount to the same address, sent at once, are two transfers", async () => {
  const { gw, pay, status, received, mine } = await setup();
  try {
    const [a, b] = [await pay("7"), await pay("7")];
    assertEquals(await Promise.all([sendOutbound(gw.deps, a), sendOutbound(gw.deps, b)]), ["sent", "sent"]);
    const [ta, tb] = [(await status(a)).txHash, (await status(b)).txHash];
    assertEquals(ta !== tb, true);
    await mine(20);
    assertEquals([(await status(a)).status, (await status(b)).status], ["CONFIRMED", "CONFIRMED"]);
    assertEquals(await received(), 14_000_000n);
  } finally {
    await gw.close();
  }
});
