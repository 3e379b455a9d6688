// Validation and execution of the Stake 2.0 contracts: FreezeBalanceV2 (stake TRX for a
// resource), DelegateResource (lend the staked resource to another account) and
// UnDelegateResource (take it back). Messages are java-tron's, so clients see the same errors.
import type { HexAddress } from "../protocol/crypto.ts";
import {
  BLOCK_INTERVAL_MS,
  DEFAULT_LOCK_PERIOD,
  energyUsedNow,
  MAX_LOCK_PERIOD,
  netUsedNow,
  networkTotals,
  TOTAL_ENERGY_LIMIT,
  TOTAL_NET_LIMIT,
  TRX_PRECISION,
  usageInSun,
} from "./energy.ts";
import type { ResourceCall } from "../protocol/resource_contracts.ts";
import type { Account, Delegation } from "./state.ts";
import type { StakingContext } from "./staking_context.ts";

export type { StakingContext } from "./staking_context.ts";
import { executeUnstaking, isUnstakingCall, unstakingError } from "./unstaking.ts";

export class StakingRejected extends Error {}

const fail = (message: string): never => {
  throw new StakingRejected(message);
};

const emptyDelegation = (): Delegation => ({
  energy: 0n,
  bandwidth: 0n,
  lockedEnergy: 0n,
  lockedBandwidth: 0n,
  expireTimeForEnergy: 0,
  expireTimeForBandwidth: 0,
});

const ENERGY = 1;
const BANDWIDTH = 0;

/** What the owner's usage still ties up of its own stake (it cannot delegate that part away). */
function tiedUp(owner: Account, ctx: StakingContext, resource: number): bigint {
  const totals = networkTotals(ctx.state);
  const usage = resource === ENERGY
    ? usageInSun(energyUsedNow(owner, ctx.time), TOTAL_ENERGY_LIMIT, totals.energyWeight) -
      owner.acquiredEnergy
    : usageInSun(netUsedNow(owner, ctx.time), TOTAL_NET_LIMIT, totals.netWeight) - owner.acquiredBandwidth;
  return usage > 0n ? usage : 0n;
}

/** Most the owner can delegate now (wallet/getcandelegatedmaxsize). */
export function canDelegateMax(owner: Account, ctx: StakingContext, resource: number): bigint {
  const frozen = resource === ENERGY ? owner.frozenEnergy : owner.frozenBandwidth;
  const max = frozen - tiedUp(owner, ctx, resource);
  return max > 0n ? max : 0n;
}

/** Throws StakingRejected with java-tron's message when the contract would fail validation. */
export function validateStaking(call: ResourceCall, ctx: StakingContext): void {
  if (isUnstakingCall(call)) {
    const error = unstakingError(call, ctx);
    if (error) fail(error);
    return;
  }
  const ownerHex = call.value.owner_address;
  const owner = ctx.state.read(ownerHex);
  if (call.type === "FreezeBalanceV2Contract") {
    const { frozen_balance: amount, resource } = call.value;
    if (!owner.exists) fail(`Account[${ownerHex}] not exists`);
    if (amount <= 0n) fail("frozenBalance must be positive");
    if (amount < TRX_PRECISION) fail("frozenBalance must be greater than or equal to 1 TRX");
    if (amount > owner.trx) fail("frozenBalance must be less than or equal to accountBalance");
    if (resource !== ENERGY && resource !== BANDWIDTH) {
      fail("ResourceCode error, valid ResourceCode[BANDWIDTH、ENERGY]");
    }
    return;
  }
  const { resource, balance, receiver_address: receiverHex } = call.value;
  if (call.type === "DelegateResourceContract") {
    if (!owner.exists) fail(`Account[${ownerHex}] not exists`);
    if (balance < TRX_PRECISION) fail("delegateBalance must be more than 1TRX");
    if (resource !== ENERGY && resource !== BANDWIDTH) {
      fail("ResourceCode error, valid ResourceCode[BANDWIDTH、ENERGY]");
    }
    if (canDelegateMax(owner, ctx, resource) < balance) {
      fail(`delegateBalance must be less than available Freeze${resourceLabel(resource)}V2 balance`);
    }
    if (!/^41[0-9a-f]{40}$/.test(receiverHex)) fail("Invalid receiverAddress");
    if (receiverHex === ownerHex) fail("receiverAddress must not be the same as ownerAddress");
    if (!ctx.state.read(receiverHex).exists) fail(`Account[${receiverHex}] not exists`);
    if (call.value.lock) {
      const period = call.value.lock_period === 0n ? DEFAULT_LOCK_PERIOD : call.value.lock_period;
      if (period < 0n || period > MAX_LOCK_PERIOD) {
        fail(
          `The lock period of delegate resource cannot be less than 0 and cannot exceed ${MAX_LOCK_PERIOD}!`,
        );
      }
      // A new lock may not end before the one already running on this pair.
      const last = owner.delegations[receiverHex];
      const lastExpire = last
        ? (resource === ENERGY ? last.expireTimeForEnergy : last.expireTimeForBandwidth)
        : 0;
      const remaining = lastExpire - ctx.time;
      if (last && remaining > Number(period) * BLOCK_INTERVAL_MS) {
        const name = resource === ENERGY ? "ENERGY" : "BANDWIDTH";
        fail(
          `The lock period for ${name} this time cannot be less than the remaining time[${remaining}ms] of the last lock period for ${name}!`,
        );
      }
    }
    if (ctx.isContract(receiverHex)) fail("Do not allow delegate resources to contract addresses");
    return;
  }
  if (!owner.exists) fail(`Account[${ownerHex}] does not exist`);
  if (!/^41[0-9a-f]{40}$/.test(receiverHex)) fail("Invalid receiverAddress");
  if (receiverHex === ownerHex) fail("receiverAddress must not be the same as ownerAddress");
  const record = owner.delegations[receiverHex];
  if (!record) fail("delegated Resource does not exist");
  if (balance <= 0n) fail("unDelegateBalance must be more than 0 TRX");
  if (resource !== ENERGY && resource !== BANDWIDTH) {
    fail("ResourceCode error.valid ResourceCode[BANDWIDTH、Energy]");
  }
  const free = unlockedNow(record!, ctx.time);
  const available = resource === ENERGY ? free.energy : free.bandwidth;
  if (available < balance) {
    fail(
      resource === ENERGY
        ? `insufficient delegateFrozenBalance(Energy), request=${balance}, unlock_balance=${available}`
        : `insufficient delegatedFrozenBalance(BANDWIDTH), request=${balance}, unlock_balance=${available}`,
    );
  }
}

const resourceLabel = (resource: number) => resource === ENERGY ? "Energy" : "Bandwidth";

/** The record with locks that have expired by `now` moved to the unlocked part. */
function unlockedNow(d: Delegation, now: number): Delegation {
  const out = { ...d };
  if (out.lockedEnergy > 0n && out.expireTimeForEnergy < now) {
    out.energy += out.lockedEnergy;
    out.lockedEnergy = 0n;
    out.expireTimeForEnergy = 0;
  }
  if (out.lockedBandwidth > 0n && out.expireTimeForBandwidth < now) {
    out.bandwidth += out.lockedBandwidth;
    out.lockedBandwidth = 0n;
    out.expireTimeForBandwidth = 0;
  }
  return out;
}

function setDelegation(owner: Account, receiver: HexAddress, d: Delegation): void {
  const next = { ...owner.delegations };
  const empty = d.energy === 0n && d.bandwidth === 0n && d.lockedEnergy === 0n && d.lockedBandwidth === 0n;
  if (empty) delete next[receiver];
  else next[receiver] = d;
  owner.delegations = next;
}

/**
 * Applies a validated staking contract; answers the unfrozen TRX it returned to the balance.
 * These contracts cost no fee beyond bandwidth.
 */
export function executeStaking(call: ResourceCall, ctx: StakingContext): bigint {
  if (isUnstakingCall(call)) return executeUnstaking(call, ctx);
  const owner = ctx.state.write(call.value.owner_address);
  const energy = call.value.resource === ENERGY;
  if (call.type === "FreezeBalanceV2Contract") {
    owner.trx -= call.value.frozen_balance;
    if (energy) owner.frozenEnergy += call.value.frozen_balance;
    else owner.frozenBandwidth += call.value.frozen_balance;
    ctx.state.stakeChanged();
    return 0n;
  }
  const receiverHex = call.value.receiver_address;
  const receiver = ctx.state.write(receiverHex);
  const balance = call.value.balance;
  const record = unlockedNow(owner.delegations[receiverHex] ?? emptyDelegation(), ctx.time);
  if (call.type === "DelegateResourceContract") {
    const { lock } = call.value;
    const period = call.value.lock_period === 0n ? DEFAULT_LOCK_PERIOD : call.value.lock_period;
    const expire = ctx.time + Number(period) * BLOCK_INTERVAL_MS;
    if (energy) {
      if (lock) {
        record.lockedEnergy += balance;
        record.expireTimeForEnergy = expire;
      } else record.energy += balance;
      owner.frozenEnergy -= balance;
      owner.delegatedEnergy += balance;
      receiver.acquiredEnergy += balance;
    } else {
      if (lock) {
        record.lockedBandwidth += balance;
        record.expireTimeForBandwidth = expire;
      } else record.bandwidth += balance;
      owner.frozenBandwidth -= balance;
      owner.delegatedBandwidth += balance;
      receiver.acquiredBandwidth += balance;
    }
    setDelegation(owner, receiverHex, record);
    return 0n;
  }
  // Taking a resource back also takes back the receiver's matching share of its usage.
  const totals = networkTotals(ctx.state);
  if (energy) {
    const used = energyUsedNow(receiver, ctx.time);
    const all = receiver.frozenEnergy + receiver.acquiredEnergy;
    const maxMoved = Math.floor(Number(balance / TRX_PRECISION) * (TOTAL_ENERGY_LIMIT / totals.energyWeight));
    const moved = all > 0n ? Math.min(maxMoved, Math.floor(used * (Number(balance) / Number(all)))) : 0;
    receiver.acquiredEnergy = receiver.acquiredEnergy < balance ? 0n : receiver.acquiredEnergy - balance;
    receiver.energyUsage = used - moved;
    receiver.latestConsumeTimeForEnergy = ctx.time;
    record.energy -= balance;
    owner.delegatedEnergy -= balance;
    owner.frozenEnergy += balance;
    if (moved > 0) {
      owner.energyUsage = energyUsedNow(owner, ctx.time) + moved;
      owner.latestConsumeTimeForEnergy = ctx.time;
    }
  } else {
    const used = netUsedNow(receiver, ctx.time);
    const all = receiver.frozenBandwidth + receiver.acquiredBandwidth;
    const maxMoved = Math.floor(Number(balance / TRX_PRECISION) * (TOTAL_NET_LIMIT / totals.netWeight));
    const moved = all > 0n ? Math.min(maxMoved, Math.floor(used * (Number(balance) / Number(all)))) : 0;
    receiver.acquiredBandwidth = receiver.acquiredBandwidth < balance
      ? 0n
      : receiver.acquiredBandwidth - balance;
    receiver.netUsage = used - moved;
    receiver.latestConsumeTime = ctx.time;
    record.bandwidth -= balance;
    owner.delegatedBandwidth -= balance;
    owner.frozenBandwidth += balance;
    if (moved > 0) {
      owner.netUsage = netUsedNow(owner, ctx.time) + moved;
      owner.latestConsumeTime = ctx.time;
    }
  }
  setDelegation(owner, receiverHex, record);
  return 0n;
}
