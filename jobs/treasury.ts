// Sweeps: the cron plans and advances them every minute; while any is running the job re-enqueues itself
// a block later, so a sweep's five steps take seconds, not minutes. A payout that finds the hot wallet
// short sends an urgent message: every credited address is then worth sweeping.
import type { Deps, JobMessage } from "../domain/deps.ts";
import { runSweeps } from "../domain/treasury/sweep.ts";
import { handleOutboundSweep } from "./money_out.ts";

export const SWEEP_TICK_MS = 3000;

export async function handleTreasurySweep(
  message: Extract<JobMessage, { type: "treasury.sweep" }>,
  deps: Deps,
): Promise<void> {
  if (deps.config.tron.network === "devnet" && !deps.config.tron.mnemonic) return;
  const { running, outcomes } = await runSweeps(deps, { urgent: message.urgent });
  // USDT just reached the hot wallet: payouts waiting for it go now, not at the next cron minute.
  if (outcomes.includes("done")) await handleOutboundSweep(deps);
  if (running) await deps.queue.enqueue({ type: "treasury.sweep" }, { delayMs: SWEEP_TICK_MS });
}

export async function handleSweepCron(deps: Deps): Promise<void> {
  await handleTreasurySweep({ type: "treasury.sweep" }, deps);
}
