// Payouts and withdrawals on their way out: the queue message sends one item now, the cron sweep finds
// every item still in flight (a lost message, a crash, a refused broadcast, a sandbox confirmation due).
import type { Deps, JobMessage } from "../domain/deps.ts";
import { sendOutbound } from "../domain/money_out/send.ts";
import { listInFlight } from "../db/outbound.ts";

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
  return handled;
}
