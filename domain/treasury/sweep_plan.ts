// What a sweep will take from the hot wallet, decided from what the chain says the hot wallet can really
// give now. Energy the hot wallet used (its own payouts, loans taken back with the borrower's use) ties up
// its stake until it regenerates over 24 hours, as on TRON, so the stake it may lend is the node's
// `getcandelegatedmaxsize`, never its staked total. Short of that, it stakes more TRX; short of TRX to
// stake, it sends the address TRX to burn for its own fee; short of that too, nothing is planned.
import type { SweepRow } from "../../db/sweeps.ts";

/** Energy of one USDT transfer (java-tron charges about this for a TRC20 transfer). */
export const SWEEP_ENERGY = 65_000;
/** The fallback: TRX sent to the address so it can burn for its own energy. */
export const TOPUP_SUN = 15_000_000n;
/** What activating an address costs the hot wallet: 1 sun sent, the account creation fee and its bandwidth. */
export const ACTIVATION_COST_SUN = 1_100_001n;
/** TRX the hot wallet keeps unstaked, for bandwidth and activations. */
export const HOT_WALLET_TRX_RESERVE_SUN = 100_000_000n;
/** FreezeBalanceV2 takes at least 1 TRX. */
export const MIN_STAKE_SUN = 1_000_000n;
/**
 * Stake added beyond a shortfall, as a share of the loan: staking raises the network's total weight, so a
 * loan costs a little more stake once the stake lands. One percent (~48 TRX on mainnet) is never lost:
 * it stays staked and lent by later sweeps.
 */
const STAKE_MARGIN_DIVISOR = 100n;

/** Stake to add for a shortfall: the shortfall, a margin, at least 1 TRX; 0 when nothing is short. */
function stakeFor(shortSun: bigint, loanSun: bigint): bigint {
  if (shortSun <= 0n) return 0n;
  const withMargin = shortSun + loanSun / STAKE_MARGIN_DIVISOR;
  return withMargin < MIN_STAKE_SUN ? MIN_STAKE_SUN : withMargin;
}

export type SweepStep = "STAKE" | "ACTIVATE" | "DELEGATE" | "TRANSFER" | "UNDELEGATE" | "TOPUP";

/** What the hot wallet can still give sweeps: stake it may lend, TRX it may spend, a sweep's loan. */
export interface HotWalletBudget {
  lendableSun: bigint;
  spendableSun: bigint;
  /** Stake that lends one sweep's energy at the network's current totals. */
  loanSun: bigint;
}

export type SweepPlan =
  | { method: "DELEGATE"; stakeSun: bigint; steps: SweepStep[] }
  | { method: "TOPUP"; stakeSun: 0n; steps: SweepStep[] };

/** The cheapest way to sweep one address within the budget, which it then takes out; undefined: none. */
export function planSweep(budget: HotWalletBudget, activated: boolean): SweepPlan | undefined {
  const activation = activated ? 0n : ACTIVATION_COST_SUN;
  const stakeSun = stakeFor(budget.loanSun - budget.lendableSun, budget.loanSun);
  if (budget.spendableSun >= stakeSun + activation) {
    budget.spendableSun -= stakeSun + activation;
    budget.lendableSun = budget.lendableSun + stakeSun - budget.loanSun;
    const steps: SweepStep[] = [
      ...(stakeSun > 0n ? ["STAKE" as const] : []),
      ...(activated ? [] : ["ACTIVATE" as const]),
      "DELEGATE",
      "TRANSFER",
      "UNDELEGATE",
    ];
    return { method: "DELEGATE", stakeSun, steps };
  }
  if (budget.spendableSun >= TOPUP_SUN) {
    budget.spendableSun -= TOPUP_SUN;
    return { method: "TOPUP", stakeSun: 0n, steps: ["TOPUP", "TRANSFER"] };
  }
  return undefined;
}

/**
 * Takes out of the budget what running sweeps will still take from the hot wallet: stake they will
 * lend, TRX they will stake, send or spend on activation. Only steps not yet done count (a step whose
 * transaction is in a block but not yet recorded counts twice: the error is on the safe side).
 */
export function subtractRunning(budget: HotWalletBudget, running: SweepRow[]): void {
  for (const sweep of running) {
    const pending = (step: SweepStep) => {
      const at = sweep.steps.lastIndexOf(step);
      return at >= 0 && sweep.step <= at;
    };
    const stake = BigInt(sweep.stake_sun ?? "0");
    if (pending("STAKE")) {
      budget.spendableSun -= stake;
      budget.lendableSun -= budget.loanSun - stake;
    } else if (pending("DELEGATE")) budget.lendableSun -= budget.loanSun;
    if (pending("ACTIVATE")) budget.spendableSun -= ACTIVATION_COST_SUN;
    if (pending("TOPUP")) budget.spendableSun -= TOPUP_SUN;
  }
  if (budget.lendableSun < 0n) budget.lendableSun = 0n;
}

/**
 * A sweep about to lend finds the hot wallet's lendable stake short (its own payouts used energy since
 * the plan, or another sweep took it): stake the difference first, or else fall back to TRX for the fee.
 * The steps already done stay; undefined when the hot wallet can do neither now.
 */
export function replanAtDelegate(
  sweep: Pick<SweepRow, "steps" | "step">,
  shortSun: bigint,
  loanSun: bigint,
  spendableSun: bigint,
): { method: "DELEGATE" | "TOPUP"; stakeSun: bigint; steps: SweepStep[] } | undefined {
  const done = sweep.steps.slice(0, sweep.step) as SweepStep[];
  const stakeSun = stakeFor(shortSun, loanSun);
  if (spendableSun >= stakeSun) {
    return {
      method: "DELEGATE",
      stakeSun,
      steps: [...done, "STAKE", ...(sweep.steps.slice(sweep.step) as SweepStep[])],
    };
  }
  if (spendableSun >= TOPUP_SUN) {
    return { method: "TOPUP", stakeSun: 0n, steps: [...done, "TOPUP", "TRANSFER"] };
  }
  return undefined;
}
