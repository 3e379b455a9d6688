// Stake 2.0 on the devnet: staking TRX for energy, delegating it to a deposit address that holds
// USDT and no TRX, sweeping, taking it back; reorgs and restarts; what is refused and how.
import { assert, assertEquals } from "../assert.ts";
import { createDevnet, type Devnet } from "../../rails/tron/devnet/mod.ts";
import { callJson, signTransactionJson } from "../../rails/tron/devnet/testing.ts";
import { addressFromPrivateKey, fromHex, privateKeyFromSeed } from "../../rails/tron/protocol/crypto.ts";
import { encodeAddress, encodeUint } from "../../rails/tron/devnet/abi.ts";
import { ENERGY_PRICE } from "../../rails/tron/devnet/executor.ts";
import { TRANSFER_ENERGY } from "../../rails/tron/devnet/trc20.ts";
import { BASE_ENERGY_WEIGHT, TOTAL_ENERGY_LIMIT, TRX_PRECISION } from "../../rails/tron/devnet/energy.ts";
import { sunToDelegateFor } from "../../rails/tron/resources.ts";

type Json = Record<string, unknown>;
const hotKey = privateKeyFromSeed("energy test hot wallet");
const hot = addressFromPrivateKey(hotKey);
const depositKey = privateKeyFromSeed("energy test deposit");
const deposit = addressFromPrivateKey(depositKey);
const HOT_TRX = 200_000n * TRX_PRECISION;
const SWEEP_UNITS = 25_000_000n;
const text = (hex: unknown) => new TextDecoder().decode(fromHex(String(hex)));

async function setup(dataDir?: string): Promise<{ d: Devnet; advance(ms: number): void; now(): number }> {
  let t = 1_700_000_000_000;
  const d = await createDevnet({ blockMs: 0, now: () => t, dataDir });
  d.fund(hot, { trx: HOT_TRX });
  // A deposit address as a pay-in leaves it: activated, USDT, not a single sun of TRX.
  d.fund(deposit, { usdt: SWEEP_UNITS });
  return { d, advance: (ms) => (t += ms), now: () => t };
}

const account = (d: Devnet, address: string) => callJson(d.app, "/devnet/wallet/getaccount", { address });
const resources = (d: Devnet, address: string) =>
  callJson(d.app, "/devnet/wallet/getaccountresource", { address });

/** Builds through the node's create API, signs, broadcasts; answers the broadcast reply. */
async function send(d: Devnet, path: string, body: Json, key: string): Promise<Json> {
  const built = await callJson(d.app, `/devnet/wallet/${path}`, body);
  if (built.Error) return built;
  return await callJson(d.app, "/devnet/wallet/broadcasttransaction", signTransactionJson(built, key));
}

async function sweep(d: Devnet, feeLimit: bigint, from = depositKey): Promise<Json> {
  const built = await callJson(d.app, "/devnet/wallet/triggersmartcontract", {
    owner_address: addressFromPrivateKey(from),
    contract_address: d.usdtContractHex,
    function_selector: "transfer(address,uint256)",
    parameter: encodeAddress(hot) + encodeUint(SWEEP_UNITS),
    fee_limit: Number(feeLimit),
  });
  const tx = built.transaction as Json;
  const sent = await callJson(d.app, "/devnet/wallet/broadcasttransaction", signTransactionJson(tx, from));
  assertEquals(sent.result, true, `sweep broadcast: ${text(sent.message ?? "")}`);
  d.mine(1);
  return await callJson(d.app, "/devnet/wallet/gettransactioninfobyid", { value: tx.txID });
}

async function usdtOf(d: Devnet, address: string): Promise<bigint> {
  const res = await callJson(d.app, "/devnet/wallet/triggerconstantcontract", {
    owner_address: address,
    contract_address: d.usdtContractHex,
    function_selector: "balanceOf(address)",
    parameter: encodeAddress(address),
  });
  return BigInt("0x" + (res.constant_result as string[])[0]);
}

const DAY_MS = 86_400_000;
const SWEEP_FEE_LIMIT = TRANSFER_ENERGY * ENERGY_PRICE;
const energyFor = (stakedSun: bigint, weight: number) =>
  Math.floor(Number(stakedSun / TRX_PRECISION) * (TOTAL_ENERGY_LIMIT / weight));

async function stakeAndDelegate(d: Devnet, stake: bigint): Promise<bigint> {
  const staked = await send(d, "freezebalancev2", {
    owner_address: hot,
    frozen_balance: Number(stake),
    resource: "ENERGY",
  }, hotKey);
  assertEquals(staked.result, true);
  d.mine(1);
  const totals = await resources(d, hot);
  const delegation = sunToDelegateFor(Number(TRANSFER_ENERGY), {
    totalEnergyLimit: totals.TotalEnergyLimit as number,
    totalEnergyWeight: totals.TotalEnergyWeight as number,
  });
  const delegated = await send(d, "delegateresource", {
    owner_address: hot,
    receiver_address: deposit,
    balance: Number(delegation),
    resource: "ENERGY",
  }, hotKey);
  assertEquals(delegated.result, true, text(delegated.message ?? ""));
  d.mine(1);
  return delegation;
}

Deno.test("a deposit address with USDT and no TRX: its sweep fails OUT_OF_ENERGY and burns nothing", async () => {
  const { d } = await setup();
  const info = await sweep(d, 100n * TRX_PRECISION);
  assertEquals((info.receipt as Json).result, "OUT_OF_ENERGY");
  assertEquals(info.result, "FAILED");
  assertEquals(info.fee, undefined);
  assertEquals(await usdtOf(d, deposit), SWEEP_UNITS);
  assertEquals((await account(d, deposit)).balance, undefined);
});

Deno.test("with too little TRX the sweep burns what it had, capped by fee_limit, and fails OUT_OF_ENERGY", async () => {
  const { d } = await setup();
  const short = SWEEP_FEE_LIMIT / 2n + 123n;
  d.fund(deposit, { trx: short });
  const info = await sweep(d, 100n * TRX_PRECISION);
  assertEquals((info.receipt as Json).result, "OUT_OF_ENERGY");
  // Everything its balance could buy, in whole units of energy.
  const burnable = (short / ENERGY_PRICE) * ENERGY_PRICE;
  assertEquals((info.receipt as Json).energy_fee, Number(burnable));
  assertEquals(BigInt((await account(d, deposit)).balance as number), short - burnable);
  assertEquals(await usdtOf(d, deposit), SWEEP_UNITS);

  // Plenty of TRX but a fee_limit below the need: fee_limit is what burns.
  d.fund(deposit, { trx: 100n * TRX_PRECISION });
  const capped = await sweep(d, SWEEP_FEE_LIMIT - 1_000n);
  assertEquals((capped.receipt as Json).result, "OUT_OF_ENERGY");
  assertEquals((capped.receipt as Json).energy_fee, Number(SWEEP_FEE_LIMIT - 1_000n));
});

Deno.test("stake, delegate: the sweep succeeds on delegated energy and burns no TRX; undelegate takes it back", async () => {
  const { d, advance } = await setup();
  const stake = 10_000n * TRX_PRECISION;
  const before = await resources(d, hot);
  assertEquals(before.TotalEnergyWeight, BASE_ENERGY_WEIGHT);
  const delegation = await stakeAndDelegate(d, stake);

  const hotAccount = await account(d, hot);
  assertEquals(BigInt(hotAccount.balance as number), HOT_TRX - stake);
  assertEquals((hotAccount.frozenV2 as Json[])[1], { type: "ENERGY", amount: Number(stake - delegation) });
  assertEquals(
    (hotAccount.account_resource as Json).delegated_frozenV2_balance_for_energy,
    Number(delegation),
  );
  const weight = BASE_ENERGY_WEIGHT + Number(stake / TRX_PRECISION);
  assertEquals((await resources(d, hot)).TotalEnergyWeight, weight);
  assertEquals((await resources(d, hot)).EnergyLimit, energyFor(stake - delegation, weight));
  const depositResources = await resources(d, deposit);
  assertEquals(depositResources.EnergyLimit, energyFor(delegation, weight));
  assert((depositResources.EnergyLimit as number) >= Number(TRANSFER_ENERGY));
  assertEquals(
    ((await account(d, deposit)).account_resource as Json).acquired_delegated_frozenV2_balance_for_energy,
    Number(delegation),
  );
  assertEquals(
    await callJson(d.app, "/devnet/wallet/getdelegatedresourcev2", { fromAddress: hot, toAddress: deposit }),
    {
      delegatedResource: [{ from: hot, to: deposit, frozen_balance_for_energy: Number(delegation) }],
    },
  );

  const info = await sweep(d, SWEEP_FEE_LIMIT);
  assertEquals(info.receipt, {
    energy_usage: Number(TRANSFER_ENERGY),
    energy_usage_total: Number(TRANSFER_ENERGY),
    net_usage: (info.receipt as Json).net_usage,
    result: "SUCCESS",
  });
  assertEquals(info.fee, undefined);
  assertEquals((await account(d, deposit)).balance, undefined);
  assertEquals(await usdtOf(d, deposit), 0n);
  assertEquals(await usdtOf(d, hot), SWEEP_UNITS);
  assertEquals((await resources(d, deposit)).EnergyUsed, Number(TRANSFER_ENERGY));

  const back = await send(d, "undelegateresource", {
    owner_address: hot,
    receiver_address: deposit,
    balance: Number(delegation),
    resource: "ENERGY",
  }, hotKey);
  assertEquals(back.result, true);
  d.mine(1);
  const after = await account(d, hot);
  assertEquals((after.frozenV2 as Json[])[1], { type: "ENERGY", amount: Number(stake) });
  assertEquals((after.account_resource as Json).delegated_frozenV2_balance_for_energy, undefined);
  // The energy the deposit used comes back with the stake, as java-tron moves usage on undelegate.
  assertEquals((await resources(d, hot)).EnergyUsed, Number(TRANSFER_ENERGY));
  assertEquals((await resources(d, deposit)).EnergyLimit, undefined);
  assertEquals(
    await callJson(d.app, "/devnet/wallet/getdelegatedresourcev2", { fromAddress: hot, toAddress: deposit }),
    {},
  );
  // The next sweep from it, without energy, fails again (a day later: its free bandwidth is spent).
  d.fund(deposit, { usdt: SWEEP_UNITS });
  advance(DAY_MS);
  assertEquals(((await sweep(d, SWEEP_FEE_LIMIT)).receipt as Json).result, "OUT_OF_ENERGY");
});

Deno.test("a reorg undoes a delegation and a stake; a restart replays them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { d } = await setup(dir);
    const stake = 10_000n * TRX_PRECISION;
    await stakeAndDelegate(d, stake);
    const staked = await account(d, hot);
    const depositStaked = await resources(d, deposit);
    assert((depositStaked.EnergyLimit as number) > 0);

    // Reopened from disk: the same stake and delegation.
    await d.stop();
    const reopened = await createDevnet({ blockMs: 0, now: () => 1_700_000_000_000, dataDir: dir });
    assertEquals(await account(reopened, hot), staked);
    assertEquals(await resources(reopened, deposit), depositStaked);

    reopened.reorg(1);
    assertEquals((await resources(reopened, deposit)).EnergyLimit, undefined);
    const undone = await account(reopened, hot);
    assertEquals((undone.frozenV2 as Json[])[1], { type: "ENERGY", amount: Number(stake) });
    assertEquals((undone.account_resource as Json).delegated_frozenV2_balance_for_energy, undefined);
    reopened.reorg(2);
    assertEquals(BigInt((await account(reopened, hot)).balance as number), HOT_TRX);
    assertEquals((await resources(reopened, hot)).TotalEnergyWeight, BASE_ENERGY_WEIGHT);
    assertEquals(((await sweep(reopened, SWEEP_FEE_LIMIT)).receipt as Json).result, "OUT_OF_ENERGY");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("energy used on delegated stake recovers over 24 hours", async () => {
  const { d, advance, now } = await setup();
  await stakeAndDelegate(d, 10_000n * TRX_PRECISION);
  await sweep(d, SWEEP_FEE_LIMIT);
  assertEquals((await resources(d, deposit)).EnergyUsed, Number(TRANSFER_ENERGY));
  const consumedAt = ((await account(d, deposit)).account_resource as Json)
    .latest_consume_time_for_energy as number;
  advance(DAY_MS / 2);
  const left = Math.ceil(Number(TRANSFER_ENERGY) * (1 - (now() - consumedAt) / DAY_MS));
  assert(left > 0 && left < Number(TRANSFER_ENERGY));
  assertEquals((await resources(d, deposit)).EnergyUsed, left);
  advance(consumedAt + DAY_MS - now());
  assertEquals((await resources(d, deposit)).EnergyUsed, undefined);
});

Deno.test("unfreeze moves stake to a 14-day queue and lowers the network weight; withdraw returns the TRX", async () => {
  const { d, advance, now } = await setup();
  const stake = 3_000n * TRX_PRECISION;
  assertEquals(
    (await send(d, "freezebalancev2", {
      owner_address: hot,
      frozen_balance: Number(stake),
      resource: "ENERGY",
    }, hotKey)).result,
    true,
  );
  d.mine(1);
  const part = 1_000n * TRX_PRECISION;
  const unfrozen = await send(d, "unfreezebalancev2", {
    owner_address: hot,
    unfreeze_balance: Number(part),
    resource: "ENERGY",
  }, hotKey);
  assertEquals(unfrozen.result, true);
  d.mine(1);
  const waiting = await account(d, hot);
  assertEquals((waiting.frozenV2 as Json[])[1], { type: "ENERGY", amount: Number(stake - part) });
  const [entry] = waiting.unfrozenV2 as Json[];
  assertEquals([entry.type, entry.unfreeze_amount], ["ENERGY", Number(part)]);
  assertEquals(BigInt(waiting.balance as number), HOT_TRX - stake);
  assertEquals(
    (await resources(d, hot)).TotalEnergyWeight,
    BASE_ENERGY_WEIGHT + Number((stake - part) / TRX_PRECISION),
  );
  // Too early: nothing to withdraw yet.
  const early = await callJson(d.app, "/devnet/wallet/withdrawexpireunfreeze", { owner_address: hot });
  assertEquals(String(early.Error).endsWith("no unFreeze balance to withdraw"), true);
  advance((entry.unfreeze_expire_time as number) - now() + 1);
  const withdraw = await send(d, "withdrawexpireunfreeze", { owner_address: hot }, hotKey);
  assertEquals(withdraw.result, true);
  d.mine(1);
  const info = await callJson(d.app, "/devnet/wallet/gettransactioninfobyid", { value: withdraw.txid });
  assertEquals(info.withdraw_expire_amount, Number(part));
  const after = await account(d, hot);
  assertEquals(BigInt(after.balance as number), HOT_TRX - stake + part);
  assertEquals(after.unfrozenV2, undefined);
});
