// Payouts and withdrawals on their way out: the queue message sends one item now, the cron sweep finds
// every item still in flight (a lost message, a crash, a refused broadcast, a sandbox confirmation due).
import type { Deps, JobMessage } from "../domain/deps.ts";
import { sendOutbound } from "../domain/money_out/send.ts";
import { listInFlight, listWaiting } from "../db/outbound.ts";

export async function handleOutboundSend(
  message: Extract<JobMessage, { type: "outbound.send" }>,
  deps: Deps,
): Promise<void> {
  await sendOutbound(deps, message.outboundId);
}

export async function handleOutboundSweep(deps: Deps): Promise<number> {
  let handled = 0;
  for (const { id } of await listInFlight(deps.db, 500)) {
    try {
      await sendOutbound(deps, id);
      handled++;
    } catch (err) {
      deps.log.error("outbound send failed", { id, error: String(err) });
    }
  }
  await reportLongWaits(deps);
  return handled;
}

/** An item waiting past the alarm threshold is an error line each minute until it moves or is cancelled. */
async function reportLongWaits(deps: Deps): Promise<void> {
  const now = deps.clock.now().getTime();
  for (const item of await listWaiting(deps.db, 20)) {
    const seconds = Math.floor((now - new Date(item.waiting_since!).getTime()) / 1000);
    if (seconds <= deps.config.outboundWaitAlarmSeconds) break; // oldest first
    deps.log.error("payout waits too long to be sent", {
      id: item.id,
      kind: item.kind,
      merchantId: item.merchant_id,
      reason: item.waiting_reason,
      waitingSeconds: seconds,
    });
  }
}
