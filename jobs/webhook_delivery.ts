// Queue and cron entry points for webhook delivery; jobs/mod.ts wires them to the KV listener and Deno.cron.
import type { Deps, JobMessage } from "../domain/deps.ts";
import { PER_ENDPOINT_IN_FLIGHT, sweepDueDeliveries } from "../domain/webhooks/delivery.ts";
import { DeliveryPump } from "../domain/webhooks/pump.ts";

// One pump per process (per deps object): its slots bound the attempts in flight across every message.
const pumps = new WeakMap<Deps, DeliveryPump>();

export function deliveryPump(deps: Deps): DeliveryPump {
  let pump = pumps.get(deps);
  if (!pump) {
    pump = new DeliveryPump(deps, {
      concurrency: deps.config.webhookWorkers,
      perEndpoint: PER_ENDPOINT_IN_FLIGHT,
    });
    pumps.set(deps, pump);
  }
  return pump;
}

/**
 * One `webhook.deliver` message: one attempt, if the delivery is still due and unclaimed. The pump takes
 * it and the handler returns, so the listener hands over the next message at once; many messages share
 * the pump's batched claims and writes. `deliveryPump(deps).idle()` waits for the attempts to finish.
 */
export async function handleWebhookDeliver(message: JobMessage, deps: Deps): Promise<void> {
  if (message.type !== "webhook.deliver" || typeof message.deliveryId !== "string") return;
  await deliveryPump(deps).accept(message.deliveryId);
}

/** Every minute: re-queue due deliveries whose message was lost or whose worker died. */
export async function handleWebhookSweep(deps: Deps): Promise<number> {
  const queued = await sweepDueDeliveries(deps);
  if (queued > 0) deps.log.info("webhook sweep queued due deliveries", { queued });
  return queued;
}
