// Subscription renewals and the mail outbox. The cron starts every due renewal (each claimed once per
// subscription and period by one statement, whichever process runs first) and fails the renewals left
// unpaid past their grace; `subscription.renew` messages do one subscription's period, idempotently.
import type { Deps, JobMessage } from "../domain/deps.ts";
import { sendPendingMail, sendQueuedMail } from "../domain/mail/outbox.ts";
import {
  failRenewalsPastGrace,
  renewDueSubscriptions,
  startRenewal,
} from "../domain/subscriptions/renewals.ts";

export async function handleSubscriptionCron(deps: Deps): Promise<void> {
  const started = await renewDueSubscriptions(deps);
  const failed = await failRenewalsPastGrace(deps);
  if (started + failed > 0) deps.log.info("subscription renewals", { started, failed });
}

export async function handleSubscriptionRenew(
  message: Extract<JobMessage, { type: "subscription.renew" }>,
  deps: Deps,
): Promise<void> {
  await startRenewal(deps, message.subscriptionId, message.periodIndex);
}

export async function handleMailSend(message: Extract<JobMessage, { type: "mail.send" }>, deps: Deps) {
  await sendQueuedMail(deps, message.mailId);
}

export async function handleMailSweep(deps: Deps): Promise<void> {
  await sendPendingMail(deps);
}
