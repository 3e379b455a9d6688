// The gateway's staking helpers end to end against the in-process devnet: sign locally (nothing
// sent), broadcast separately (a re-send is a duplicate, not a failure), read resources back.
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { createDevnet, type Devnet } from "../../rails/tron/devnet/mod.ts";
import {
  addressFromPrivateKey,
  privateKeyFromSeed,
  sha256,
  toHex,
} from "../../rails/tron/protocol/crypto.ts";
import { fromHex } from "../../rails/tron/protocol/crypto.ts";
import { ENERGY_PRICE } from "../../rails/tron/devnet/executor.ts";
import { TRANSFER_ENERGY } from "../../rails/tron/devnet/trc20.ts";
import { TRX_PRECISION } from "../../rails/tron/devnet/energy.ts";
import { createTronClient } from "../../rails/tron/client.ts";
import { createTronResources, sunToDelegateFor, type TronResources } from "../../rails/tron/resources.ts";
import {
  signDelegateResource,
  signFreezeBalanceV2,
  signTrc20Transfer,
  signTrxTransfer,
  signUndelegateResource,
  signUnfreezeBalanceV2,
  signWithdrawExpireUnfreeze,
} from "../../rails/tron/signing.ts";

const hotKey = privateKeyFromSeed("resources test hot wallet");
const hot = addressFromPrivateKey(hotKey);
const depositKey = privateKeyFromSeed("resources test deposit");
const deposit = addressFromPrivateKey(depositKey);
const fresh = addressFromPrivateKey(privateKeyFromSeed("resources test fresh address"));
const UNITS = 7_000_000n;

async function setup(now?: () => number): Promise<
  { d: Devnet; node: TronResources; options: Parameters<typeof createTronClient>[0] }
> {
  const d = await createDevnet({ blockMs: 0, now });
  d.fund(hot, { trx: 100_000n * TRX_PRECISION });
  d.fund(deposit, { usdt: UNITS });
  d.mine(1);
  // The client's fetch goes straight into the devnet's Hono app: no socket, same HTTP semantics.
  const options = {
    apiUrl: "http://devnet.test/devnet",
    fetch: (input: RequestInfo | URL, init?: RequestInit) =>
      Promise.resolve(d.app.request(String(input), init)),
  };
  return { d, node: createTronResources(options), options };
}

Deno.test("stake, delegate, sweep, undelegate and pay out TRX through the gateway helpers", async () => {
  const { d, node, options } = await setup();
  const client = createTronClient(options);
  const stake = 10_000n * TRX_PRECISION;

  const freeze = signFreezeBalanceV2(hotKey, { amountSun: stake, resource: "ENERGY" }, await node.refBlock());
  // Signed locally and not sent: the txID is the hash of the bytes, and the node knows nothing yet.
  assertEquals(freeze.txID, toHex(sha256(fromHex(freeze.raw_data_hex))));
  assertEquals(d.chain.mempool.length, 0);
  assertEquals(await node.broadcast(freeze), { accepted: true, duplicate: false, txid: freeze.txID });
  const again = await node.broadcast(freeze);
  assertEquals([again.accepted, again.duplicate, again.code], [true, true, "DUP_TRANSACTION_ERROR"]);
  d.mine(1);

  const staked = await node.getAccountResources(hot);
  assertEquals(staked.stakedForEnergySun, stake);
  assertEquals(staked.balanceSun, 100_000n * TRX_PRECISION - stake);
  assert(staked.energyLimit > 0);
  const delegation = sunToDelegateFor(Number(TRANSFER_ENERGY), staked);

  const delegate = signDelegateResource(
    hotKey,
    { receiver: deposit, amountSun: delegation, resource: "ENERGY" },
    await node.refBlock(),
  );
  assertEquals((await node.broadcast(delegate)).accepted, true);
  d.mine(1);
  const lent = await node.getAccountResources(deposit);
  assertEquals(lent.acquiredEnergySun, delegation);
  assert(lent.energyAvailable >= Number(TRANSFER_ENERGY));
  assertEquals((await node.getAccountResources(hot)).delegatedEnergySun, delegation);

  const sweep = signTrc20Transfer(depositKey, {
    contract: d.usdtContract,
    to: hot,
    units: UNITS,
    feeLimitSun: TRANSFER_ENERGY * ENERGY_PRICE,
  }, await node.refBlock());
  assertEquals((await node.broadcast(sweep)).accepted, true);
  d.mine(1);
  const info = await client.getTransactionInfoById(sweep.txID);
  assertEquals(info?.receiptResult, "SUCCESS");
  assertEquals(await client.getUsdtBalance(d.usdtContract, hot), UNITS);
  assertEquals((await node.getAccountResources(deposit)).balanceSun, 0n);

  const undelegate = signUndelegateResource(
    hotKey,
    { receiver: deposit, amountSun: delegation, resource: "ENERGY" },
    await node.refBlock(),
  );
  assertEquals((await node.broadcast(undelegate)).accepted, true);
  d.mine(1);
  assertEquals((await node.getAccountResources(deposit)).acquiredEnergySun, 0n);
  assertEquals((await node.getAccountResources(hot)).stakedForEnergySun, stake);

  // TRX to an address the chain has never seen activates it (the step before it can be delegated to).
  assertEquals((await node.getAccountResources(fresh)).activated, false);
  const trx = signTrxTransfer(hotKey, { to: fresh, amountSun: TRX_PRECISION }, await node.refBlock());
  assertEquals((await node.broadcast(trx)).accepted, true);
  d.mine(1);
  const activated = await node.getAccountResources(fresh);
  assertEquals([activated.activated, activated.balanceSun], [true, TRX_PRECISION]);
});

Deno.test("a refused broadcast says why; bad input to the signers throws before anything is signed", async () => {
  const { d, node } = await setup();
  const tooMuch = signDelegateResource(
    hotKey,
    { receiver: deposit, amountSun: TRX_PRECISION, resource: "ENERGY" },
    await node.refBlock(),
  );
  const refused = await node.broadcast(tooMuch);
  assertEquals(refused.accepted, false);
  assertEquals(refused.code, "CONTRACT_VALIDATE_ERROR");
  assertEquals(refused.message, "delegateBalance must be less than available FreezeEnergyV2 balance");

  const ref = await node.refBlock();
  const throws = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return err instanceof RangeError || err instanceof Error;
    }
    return false;
  };
  assert(throws(() => signFreezeBalanceV2("zz", { amountSun: TRX_PRECISION, resource: "ENERGY" }, ref)));
  assert(throws(() => signFreezeBalanceV2(hotKey, { amountSun: 0n, resource: "ENERGY" }, ref)));
  assert(throws(() => signFreezeBalanceV2(hotKey, { amountSun: 1n << 63n, resource: "ENERGY" }, ref)));
  assert(
    throws(() => signFreezeBalanceV2(hotKey, { amountSun: TRX_PRECISION, resource: "CPU" as "ENERGY" }, ref)),
  );
  assert(
    throws(() =>
      signDelegateResource(hotKey, { receiver: hot, amountSun: TRX_PRECISION, resource: "ENERGY" }, ref)
    ),
  );
  assert(throws(() => signTrxTransfer(hotKey, { to: "T\u0000nope", amountSun: 1n }, ref)));
  assert(
    throws(() =>
      signTrxTransfer(hotKey, { to: deposit, amountSun: 1n }, ref, { expirationMs: 2 * 86_400_000 })
    ),
  );
  assert(throws(() => signTrxTransfer(hotKey, { to: deposit, amountSun: 1n }, { ...ref, hash: "00" })));
  assertEquals(d.chain.mempool.length, 0);
  await assertRejects(() => node.getAccountResources("not an address"));
});

Deno.test("unstaking through the helpers: unfreeze shows the wait, withdraw after it returns the TRX", async () => {
  let t = 1_700_000_000_000;
  const { d, node } = await setup(() => t);
  const stake = 2_000n * TRX_PRECISION;
  const opts = () => ({ now: t });
  const freeze = signFreezeBalanceV2(
    hotKey,
    { amountSun: stake, resource: "ENERGY" },
    await node.refBlock(),
    opts(),
  );
  assertEquals((await node.broadcast(freeze)).accepted, true);
  d.mine(1);
  const unfreeze = signUnfreezeBalanceV2(
    hotKey,
    { amountSun: stake, resource: "ENERGY" },
    await node.refBlock(),
    opts(),
  );
  assertEquals((await node.broadcast(unfreeze)).accepted, true);
  d.mine(1);
  const waiting = await node.getAccountResources(hot);
  assertEquals(waiting.stakedForEnergySun, 0n);
  assertEquals(waiting.unfreezing.map((u) => [u.resource, u.amountSun]), [["ENERGY", stake]]);
  const early = signWithdrawExpireUnfreeze(hotKey, await node.refBlock(), opts());
  assertEquals((await node.broadcast(early)).message, "no unFreeze balance to withdraw");

  t = waiting.unfreezing[0].withdrawableAt + 1;
  d.mine(1); // a live chain's head is never 14 days old: expiration counts from it
  const before = waiting.balanceSun;
  const withdraw = signWithdrawExpireUnfreeze(hotKey, await node.refBlock(), opts());
  assertEquals((await node.broadcast(withdraw)).accepted, true);
  d.mine(1);
  const after = await node.getAccountResources(hot);
  assertEquals(after.unfreezing, []);
  assertEquals(after.balanceSun, before + stake);
});
