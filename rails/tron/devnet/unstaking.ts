// Unstaking (Stake 2.0): UnfreezeBalanceV2 moves staked TRX to a 14-day unfreezing queue, and
// WithdrawExpireUnfreeze (or the next unfreeze) returns what has waited long enough to the balance.
import type { ResourceCall } from "../protocol/resource_contracts.ts";
import type { Account } from "./state.ts";
import type { StakingContext } from "./staking_context.ts";

/** getUnfreezeDelayDays on mainnet. */
export const UNFREEZE_DELAY_MS = 14 * 86_400_000;
/** java-tron's UNFREEZE_MAX_TIMES: unfreezings waiting at once. */
const UNFREEZE_MAX_TIMES = 32;
const BANDWIDTH = 0;
const ENERGY = 1;

type UnstakingCall = Extract<
  ResourceCall,
  { type: "UnfreezeBalanceV2Contract" } | { type: "WithdrawExpireUnfreezeContract" }
>;

export const isUnstakingCall = (call: ResourceCall): call is UnstakingCall =>
  call.type === "UnfreezeBalanceV2Contract" || call.type === "WithdrawExpireUnfreezeContract";

const expiredSum = (a: Account, now: number) =>
  a.unfrozen.filter((u) => u.expireTime <= now).reduce((n, u) => n + u.amount, 0n);

/** Answers java-tron's validation message, or null when the contract is valid. */
export function unstakingError(call: UnstakingCall, ctx: StakingContext): string | null {
  const ownerHex = call.value.owner_address;
  const owner = ctx.state.read(ownerHex);
  if (!owner.exists) return `Account[${ownerHex}] does not exist`;
  if (call.type === "WithdrawExpireUnfreezeContract") {
    return expiredSum(owner, ctx.time) > 0n ? null : "no unFreeze balance to withdraw";
  }
  const { resource, unfreeze_balance: amount } = call.value;
  if (resource !== ENERGY && resource !== BANDWIDTH) {
    return "ResourceCode error.valid ResourceCode[BANDWIDTH、Energy]";
  }
  const frozen = resource === ENERGY ? owner.frozenEnergy : owner.frozenBandwidth;
  if (frozen <= 0n) return resource === ENERGY ? "no frozenBalance(Energy)" : "no frozenBalance(BANDWIDTH)";
  if (amount <= 0n || amount > frozen) return `Invalid unfreeze_balance, [${amount}] is error`;
  if (owner.unfrozen.filter((u) => u.expireTime > ctx.time).length >= UNFREEZE_MAX_TIMES) {
    return "Invalid unfreeze operation, unfreezing times is over limit";
  }
  return null;
}

/** Applies a validated unstaking contract; answers the TRX withdrawn to the balance (withdraw_expire_amount). */
export function executeUnstaking(call: UnstakingCall, ctx: StakingContext): bigint {
  const owner = ctx.state.write(call.value.owner_address);
  const withdrawn = expiredSum(owner, ctx.time);
  const waiting = owner.unfrozen.filter((u) => u.expireTime > ctx.time);
  owner.trx += withdrawn;
  if (call.type === "UnfreezeBalanceV2Contract") {
    const { resource, unfreeze_balance: amount } = call.value;
    if (resource === ENERGY) owner.frozenEnergy -= amount;
    else owner.frozenBandwidth -= amount;
    waiting.push({ resource, amount, expireTime: ctx.time + UNFREEZE_DELAY_MS });
    ctx.state.stakeChanged();
  }
  owner.unfrozen = waiting;
  return withdrawn;
}

/** The unfrozenV2 list as getaccount prints it. */
export function unfrozenJson(account: Account): Record<string, unknown>[] {
  return account.unfrozen.map((u) => ({
    ...(u.resource !== BANDWIDTH ? { type: u.resource === ENERGY ? "ENERGY" : String(u.resource) } : {}),
    unfreeze_amount: Number(u.amount),
    unfreeze_expire_time: u.expireTime,
  }));
}
