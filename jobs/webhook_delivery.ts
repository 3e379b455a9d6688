// Queue and cron entry points for webhook delivery; jobs/mod.ts wires them to the KV listener and Deno.cron.
import type { Deps, JobMessage } from "../domain/deps.ts";
import { deliverWebhook, sweepDueDeliveries } from "../domain/webhook_delivery.ts";

/** One `webhook.deliver` message: one attempt, if the delivery is still due and unclaimed. */
export async function handleWebhookDeliver(message: JobMessage, deps: Deps): Promise<void> {
  if (message.type !== "webhook.deliver" || typeof message.deliveryId !== "string") return;
  await deliverWebhook(deps, message.deliveryId);
}

/** Every minute: re-queue due deliveries whose message was lost or whose worker died. */
export async function handleWebhookSweep(deps: Deps): Promise<number> {
  const queued = await sweepDueDeliveries(deps);
  if (queued > 0) deps.log.info("webhook sweep queued due deliveries", { queued });
  return queued;
}
