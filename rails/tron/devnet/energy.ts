// Stake 2.0 resource arithmetic as java-tron does it: an account's share of the network's
// energy (or bandwidth) is its staked TRX over the network's total staked TRX, times the
// network's daily limit; what it used recovers linearly over a 24-hour window.
import type { Account, WorldState } from "./state.ts";

export const TRX_PRECISION = 1_000_000n;
/** TotalEnergyCurrentLimit, as on mainnet today. */
export const TOTAL_ENERGY_LIMIT = 180_000_000_000;
/** TotalNetLimit, as on mainnet. */
export const TOTAL_NET_LIMIT = 43_200_000_000;
/**
 * Whole TRX staked for energy / bandwidth on mainnet by everybody else. The devnet's own stakes
 * are added on top, so one TRX buys about as much energy (~13.5 a day) as it does on mainnet.
 */
export const BASE_ENERGY_WEIGHT = 13_369_831_825;
export const BASE_NET_WEIGHT = 84_687_233_463;
/** The resource window: usage recovers fully after 24 hours. */
export const WINDOW_MS = 86_400_000;
/** Default and maximum lock of a locked delegation, in 3-second blocks (3 days, 30 days). */
export const DEFAULT_LOCK_PERIOD = 86_400n;
export const MAX_LOCK_PERIOD = 864_000n;
export const BLOCK_INTERVAL_MS = 3_000;

/** Usage left of `used` (consumed at `lastTime`) at `now`: linear recovery over the window. */
export function recoveredUsage(used: number, lastTime: number, now: number): number {
  const elapsed = now - lastTime;
  if (used <= 0 || elapsed >= WINDOW_MS) return 0;
  if (elapsed <= 0) return used;
  return Math.ceil(used * (1 - elapsed / WINDOW_MS));
}

export interface NetworkTotals {
  /** TotalEnergyWeight / TotalNetWeight: whole TRX staked on the network. */
  energyWeight: number;
  netWeight: number;
}

export function networkTotals(state: WorldState): NetworkTotals {
  const staked = state.totalStaked();
  return {
    energyWeight: BASE_ENERGY_WEIGHT + Number(staked.energy / TRX_PRECISION),
    netWeight: BASE_NET_WEIGHT + Number(staked.bandwidth / TRX_PRECISION),
  };
}

/** java-tron's calculateGlobalEnergyLimit: whole staked TRX times the limit per TRX, rounded down. */
function share(stakedSun: bigint, limit: number, weight: number): number {
  const trx = Number(stakedSun / TRX_PRECISION);
  if (trx <= 0 || weight <= 0) return 0;
  return Math.floor(trx * (limit / weight));
}

/** EnergyLimit: own stake kept plus stake acquired by delegation (delegated-out stake is not ours). */
export function energyLimitOf(account: Account, totals: NetworkTotals): number {
  return share(account.frozenEnergy + account.acquiredEnergy, TOTAL_ENERGY_LIMIT, totals.energyWeight);
}

export function netLimitOf(account: Account, totals: NetworkTotals): number {
  return share(account.frozenBandwidth + account.acquiredBandwidth, TOTAL_NET_LIMIT, totals.netWeight);
}

export function energyUsedNow(account: Account, now: number): number {
  return recoveredUsage(account.energyUsage, account.latestConsumeTimeForEnergy, now);
}

export function netUsedNow(account: Account, now: number): number {
  return recoveredUsage(account.netUsage, account.latestConsumeTime, now);
}

export function energyLeft(account: Account, totals: NetworkTotals, now: number): number {
  return Math.max(0, energyLimitOf(account, totals) - energyUsedNow(account, now));
}

/**
 * Staked sun that `usage` (in energy or bandwidth units) stands for: what an owner cannot
 * delegate away while it still has that usage to recover (java-tron's delegate validation).
 */
export function usageInSun(usage: number, limit: number, weight: number): bigint {
  return BigInt(Math.floor(usage * Number(TRX_PRECISION) * (weight / limit)));
}
