// XOF disbursements on their way out: the queue message takes one step now; the cron sweep gives every
// disbursement still open (a lost message, a crash after sending, a late provider) another step.
import type { Deps, JobMessage } from "../domain/deps.ts";
import { processDisbursement, sweepDisbursements } from "../domain/fiat_out/disburse.ts";
// Registers the WITHDRAWAL finisher wherever the job runs.
import "../domain/fiat_out/withdrawals.ts";
// Registers the REFUND finisher (a mobile money refund is a disbursement).
import "../domain/refunds/send.ts";
// Registers the owner of REFUND transfers: the sender settles and releases them like payouts.
import "../domain/refunds/usdt.ts";

export async function handleFiatDisburse(
  message: Extract<JobMessage, { type: "fiat.disburse" }>,
  deps: Deps,
): Promise<void> {
  await processDisbursement(deps, message.disbursementId);
}

export async function handleDisbursementSweep(deps: Deps): Promise<number> {
  return await sweepDisbursements(deps);
}
