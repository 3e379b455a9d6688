// Registers the background work: the single KV queue listener and the cron safety nets.
// Every handler is idempotent: KV messages may repeat or vanish, and several processes may run them.
import type { Deps, JobMessage } from "../domain/deps.ts";
import { handleWebhookDeliver, handleWebhookSweep } from "./webhook_delivery.ts";

export async function dispatchJob(message: JobMessage, deps: Deps): Promise<void> {
  switch (message.type) {
    case "webhook.deliver":
      return await handleWebhookDeliver(message, deps);
    default:
      deps.log.warn("unknown job message dropped", { message });
  }
}

function isJobMessage(value: unknown): value is JobMessage {
  return typeof value === "object" && value !== null &&
    typeof (value as { type?: unknown }).type === "string";
}

export function registerJobs(deps: Deps): { stop(): void } {
  let stopped = false;
  deps.kv.listenQueue(async (message: unknown) => {
    if (stopped || !isJobMessage(message)) return;
    try {
      await dispatchJob(message, deps);
    } catch (err) {
      // Swallowed on purpose: the row in Postgres is still due, so the cron sweep retries it.
      deps.log.error("job failed", { type: message.type, error: String(err) });
    }
  });
  Deno.cron("webhook-delivery-sweep", "* * * * *", async () => {
    if (!stopped) await handleWebhookSweep(deps);
  });
  return {
    stop() {
      stopped = true;
    },
  };
}
