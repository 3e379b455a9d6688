// Refunds on their way out: the queue message takes one step now; the cron sweep gives every refund still
// open (a lost message, a crash after sending, a late acquirer) another step.
import type { Deps, JobMessage } from "../domain/deps.ts";
import { processRefund, sweepRefunds } from "../domain/refunds/send.ts";

export async function handleRefundSend(
  message: Extract<JobMessage, { type: "refund.send" }>,
  deps: Deps,
): Promise<void> {
  await processRefund(deps, message.refundId);
}

export async function handleRefundSweep(deps: Deps): Promise<number> {
  return await sweepRefunds(deps);
}
