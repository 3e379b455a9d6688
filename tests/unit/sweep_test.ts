// Sweeps on the devnet: a paid deposit address (USDT, no TRX, never activated) is emptied into the hot
// wallet with lent energy and the loan taken back; without enough TRX to stake, TRX is sent for the fee;
// the TRX burned is booked; a payout short of hot-wallet USDT pulls a sweep forward.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { sendOutbound } from "../../domain/money_out/send.ts";
import { hotWallet } from "../../domain/treasury/hot_wallet.ts";
import { planSweeps, runSweeps } from "../../domain/treasury/sweep.ts";
import { sunToDelegateFor } from "../../rails/tron/resources.ts";
import { signFreezeBalanceV2 } from "../../rails/tron/signing.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { creditUsdt, idem, randomTronAddress, whitelist } from "../money_out_helpers.ts";

const TRX = 1_000_000n;

async function setup(hotTrx: bigint) {
  const gw = await startTestGateway();
  const m = await gw.createMerchant("Sweep Shop");
  const hot = hotWallet(gw.deps.config, false);
  if (hotTrx > 0n) gw.devnet.fund(hot.address, { trx: hotTrx });
  gw.devnet.mine(1);
  await scanChain(gw.deps);
  const usdtOf = (address: string) => gw.deps.tron.getUsdtBalance(gw.deps.config.tron.usdtContract, address);
  /** A USDT pay-in paid in full, settled, and 20 blocks deep (solidified). */
  const paidPayin = async (amount = "10", sent = 11_500_000n) => {
    const res = await gw.request("POST", "/v1/payments", { key: m.keys.liveSecret, body: { amount } });
    gw.devnet.transferUsdt(res.json.data.address, sent);
    gw.devnet.mine(25);
    await scanChain(gw.deps);
    return res.json.data.address as string;
  };
  /** Mines a block and lets the sweeps move, until none runs (or `rounds` is reached). */
  const sweepToTheEnd = async (options: { urgent?: boolean } = {}, rounds = 15) => {
    let report = await runSweeps(gw.deps, options);
    for (let i = 0; i < rounds && report.running; i++) {
      gw.devnet.mine(1);
      report = await runSweeps(gw.deps);
    }
    return report;
  };
  const sweeps = () =>
    gw.db.query<{ method: string; steps: string[]; status: string; trx_spent_sun: string; units: string }>(
      "SELECT method, steps, status, trx_spent_sun::text, units::text FROM sweeps ORDER BY created_at",
    );
  const networkCosts = async () =>
    (await gw.db.query<{ s: string }>(
      `SELECT COALESCE(sum(e.amount), 0)::text AS s FROM entries e JOIN accounts a ON a.id = e.account_id
        WHERE a.kind = 'NETWORK_COSTS' AND NOT a.is_sandbox`,
    ))[0].s;
  return { gw, m, hot, usdtOf, paidPayin, sweepToTheEnd, sweeps, networkCosts };
}

Deno.test("sweep with lent energy: stake, activate, delegate, transfer, undelegate; TRX burned is booked", async () => {
  const { gw, hot, usdtOf, paidPayin, sweepToTheEnd, sweeps, networkCosts } = await setup(20_000n * TRX);
  try {
    const address = await paidPayin();
    assertEquals(await gw.deps.tron.getAccount(address), null); // USDT only: never activated
    const report = await sweepToTheEnd();
    assertEquals(report.running, false);
    const [sweep] = await sweeps();
    assertEquals(sweep.method, "DELEGATE");
    assertEquals(sweep.steps, ["STAKE", "ACTIVATE", "DELEGATE", "TRANSFER", "UNDELEGATE"]);
    assertEquals(sweep.status, "DONE");
    assertEquals([await usdtOf(address), await usdtOf(hot.address)], [0n, 11_500_000n]);
    const res = await gw.deps.tronResources.getAccountResources(hot.address);
    assertEquals(res.delegatedEnergySun, 0n); // the loan was taken back
    assert(res.stakedForEnergySun > 0n);
    // The address burned no TRX for its transfer: only the hot wallet's activation and bandwidth cost.
    const spent = BigInt(sweep.trx_spent_sun);
    assert(spent > 0n && spent < 2n * TRX, `spent ${spent}`);
    assertEquals(await networkCosts(), (Number(spent) / 1e6).toString());
    // Nothing left to sweep there; the treasury view sees it in the hot wallet.
    assertEquals((await runSweeps(gw.deps)).opened, 0);
    const treasury = (await gw.admin("GET", "/admin/api/treasury")).json.data;
    assertEquals(treasury.hotWallet.usdt, "11.500000");
    assertEquals(treasury.awaitingSweep, { addresses: 0, usdt: "0.000000" });
    assertEquals(treasury.reconciliation.shortfall, false);
  } finally {
    await gw.close();
  }
});

Deno.test("without TRX enough to stake, the hot wallet sends TRX for the fee instead", async () => {
  const { gw, hot, usdtOf, paidPayin, sweepToTheEnd, sweeps, networkCosts } = await setup(200n * TRX);
  try {
    const address = await paidPayin();
    await sweepToTheEnd();
    const [sweep] = await sweeps();
    assertEquals([sweep.method, sweep.steps, sweep.status], ["TOPUP", ["TOPUP", "TRANSFER"], "DONE"]);
    assertEquals([await usdtOf(address), await usdtOf(hot.address)], [0n, 11_500_000n]);
    // The transfer burned the address's TRX for its 65,000 energy: 6.5 TRX at the devnet's 100 sun.
    assert(BigInt(sweep.trx_spent_sun) >= 6_500_000n);
    assertEquals(await networkCosts(), (Number(sweep.trx_spent_sun) / 1e6).toString());
  } finally {
    await gw.close();
  }
});

Deno.test("no TRX at all: nothing is opened, and it is said in the log", async () => {
  const { gw, paidPayin, sweeps } = await setup(0n);
  try {
    await paidPayin();
    assertEquals((await runSweeps(gw.deps)).opened, 0);
    assertEquals((await sweeps()).length, 0);
    assert(gw.logLines.some((l) => l.msg === "hot wallet lacks TRX to sweep"));
  } finally {
    await gw.close();
  }
});

Deno.test("small balances wait for the threshold; a payout short of USDT pulls the sweep forward", async () => {
  const { gw, m, hot, usdtOf, paidPayin, sweepToTheEnd } = await setup(20_000n * TRX);
  try {
    await paidPayin("5", 6_500_000n); // credited 4.925: below the 10 USDT sweep threshold
    assertEquals((await runSweeps(gw.deps)).opened, 0);
    const dest = randomTronAddress();
    await whitelist(gw, m.keys.liveSecret, dest, ["PAYOUT"]);
    const payout = await gw.request("POST", "/v1/payout", {
      key: m.keys.liveSecret,
      body: { amount: "3.9", destinationAddress: dest },
      headers: idem(),
    });
    assertEquals(payout.status, 400); // 3.9 is below the 5 USDT minimum; credit more
    await paidPayin("5", 6_500_000n);
    const ok = await gw.request("POST", "/v1/payout", {
      key: m.keys.liveSecret,
      body: { amount: "5", destinationAddress: dest },
      headers: idem(),
    });
    assertEquals(ok.status, 201);
    const id = ok.json.data.transactionId;
    assertEquals(await sendOutbound(gw.deps, id), "waiting-for-hot-wallet");
    const urgent = gw.enqueued.find((e) => e.message.type === "treasury.sweep");
    assertEquals((urgent?.message as { urgent?: boolean })?.urgent, true);
    await sweepToTheEnd({ urgent: true });
    assertEquals(await usdtOf(hot.address), 13_000_000n);
    assertEquals(await sendOutbound(gw.deps, id), "sent");
    gw.devnet.mine(20);
    await scanChain(gw.deps);
    assertEquals(await usdtOf(dest), 5_000_000n);
  } finally {
    await gw.close();
  }
});

Deno.test("sweeps in a row: used energy is not lent again; the hot wallet stakes more, then falls back to TRX", async () => {
  // 10,000 TRX: enough to stake two loans (~4,830 TRX each at the devnet's totals), not three.
  const { gw, hot, usdtOf, paidPayin, sweepToTheEnd, sweeps } = await setup(10_000n * TRX);
  try {
    for (let i = 0; i < 3; i++) {
      await paidPayin();
      const report = await sweepToTheEnd();
      assertEquals(report.running, false);
      // The loan taken back brings the borrower's use home: the stake stays tied up until it regenerates.
      const lendable = await gw.deps.tronResources.canDelegateMaxSun(hot.address, "ENERGY");
      assert(lendable < 100n * TRX, `lendable ${lendable}`);
    }
    const done = await sweeps();
    assertEquals(done.map((s) => [s.method, s.status]), [
      ["DELEGATE", "DONE"],
      ["DELEGATE", "DONE"],
      ["TOPUP", "DONE"],
    ]);
    assertEquals(done[0].steps, ["STAKE", "ACTIVATE", "DELEGATE", "TRANSFER", "UNDELEGATE"]);
    assertEquals(done[1].steps, ["STAKE", "ACTIVATE", "DELEGATE", "TRANSFER", "UNDELEGATE"]);
    assertEquals(await usdtOf(hot.address), 3n * 11_500_000n);
    // No transfer ran out of energy: the address burned no TRX where energy was lent.
    const failed = await gw.db.query(`SELECT 1 FROM sweeps WHERE status = 'FAILED'`);
    assertEquals(failed.length, 0);
  } finally {
    await gw.close();
  }
});

Deno.test("three addresses planned at once share the hot wallet's budget: two loans staked, one TRX top-up", async () => {
  const { gw, hot, usdtOf, paidPayin, sweepToTheEnd, sweeps } = await setup(10_000n * TRX);
  try {
    for (let i = 0; i < 3; i++) await paidPayin();
    const report = await sweepToTheEnd({}, 30);
    assertEquals(report.running, false);
    const done = await sweeps();
    assertEquals(done.map((s) => s.status), ["DONE", "DONE", "DONE"]);
    assertEquals(done.map((s) => s.method).sort(), ["DELEGATE", "DELEGATE", "TOPUP"]);
    assertEquals(await usdtOf(hot.address), 3n * 11_500_000n);
  } finally {
    await gw.close();
  }
});

Deno.test("a loan found short when due (the hot wallet's own payouts used its energy) is re-planned with more stake", async () => {
  const { gw, m, hot, usdtOf, paidPayin, sweepToTheEnd, sweeps } = await setup(30_000n * TRX);
  try {
    // The hot wallet stakes enough for two loans itself and holds USDT of its own to pay out.
    const res = await gw.deps.tronResources.getAccountResources(hot.address);
    const loan = sunToDelegateFor(65_000, res);
    const stake = signFreezeBalanceV2(
      hot.privateKeyHex,
      { amountSun: 2n * loan, resource: "ENERGY" },
      await gw.deps.tronResources.refBlock(),
    );
    assert((await gw.deps.tronResources.broadcast(stake)).accepted);
    gw.devnet.fund(hot.address, { usdt: 100_000_000n });
    gw.devnet.mine(1);
    const address = await paidPayin();
    await creditUsdt(gw, m.merchantId, false, "100");
    // Planned while two loans' worth of stake is free: no STAKE step.
    assertEquals(await planSweeps(gw.deps), 1);
    assertEquals((await sweeps())[0].steps, ["ACTIVATE", "DELEGATE", "TRANSFER", "UNDELEGATE"]);
    // Before the loan is due, two payouts from the hot wallet burn its own energy (65,000 each).
    const dest = randomTronAddress();
    await whitelist(gw, m.keys.liveSecret, dest, ["PAYOUT"]);
    for (const amount of ["6", "7"]) {
      const p = await gw.request("POST", "/v1/payout", {
        key: m.keys.liveSecret,
        body: { amount, destinationAddress: dest },
        headers: idem(),
      });
      assertEquals(await sendOutbound(gw.deps, p.json.data.transactionId), "sent");
    }
    gw.devnet.mine(1);
    await scanChain(gw.deps);
    assert((await gw.deps.tronResources.canDelegateMaxSun(hot.address, "ENERGY")) < loan);
    await sweepToTheEnd();
    const [sweep] = await sweeps();
    assertEquals(sweep.status, "DONE");
    assertEquals(sweep.steps, ["ACTIVATE", "STAKE", "DELEGATE", "TRANSFER", "UNDELEGATE"]);
    assertEquals(await usdtOf(address), 0n);
    assert(gw.logLines.some((l) => l.msg === "sweep re-planned: hot wallet stake short"));
  } finally {
    await gw.close();
  }
});
