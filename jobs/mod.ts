// Registers the background work: the single KV queue listener and the cron safety nets.
// Every handler is idempotent: KV messages may repeat or vanish, and several processes may run them.
import { fillAddressPool } from "../domain/address_pool.ts";
import type { Deps, JobMessage } from "../domain/deps.ts";
import {
  handleFiatReconcile,
  handleIdempotencyPurge,
  handlePayinExpiry,
  handleRateLimitPurge,
} from "./maintenance.ts";
import { handleBulkAdvance, handleBulkSweep } from "./bulk.ts";
import { handleExportPurge, handleExportRun, handleExportSweep } from "./exports.ts";
import { handleDisbursementSweep, handleFiatDisburse } from "./fiat_out.ts";
import { handleOutboundSend, handleOutboundSweep } from "./money_out.ts";
import { handlePaylinkReleaseSweep } from "./paylinks.ts";
import {
  handleMailSend,
  handleMailSweep,
  handleSubscriptionCron,
  handleSubscriptionRenew,
} from "./subscriptions.ts";
import { handleRateLockPurge } from "./shop.ts";
import { handleSweepCron, handleTreasurySweep } from "./treasury.ts";
import { ensureTronScanLoop, handleTronScan } from "./tron_scanner.ts";
import { handleWebhookDeliver, handleWebhookSweep } from "./webhook_delivery.ts";

export async function dispatchJob(message: JobMessage, deps: Deps): Promise<void> {
  switch (message.type) {
    case "webhook.deliver":
      return await handleWebhookDeliver(message, deps);
    case "tron.scan":
      return await handleTronScan(message, deps);
    case "outbound.send":
      return await handleOutboundSend(message, deps);
    case "treasury.sweep":
      return await handleTreasurySweep(message, deps);
    case "bulk.advance":
      return await handleBulkAdvance(message, deps);
    case "fiat.disburse":
      return await handleFiatDisburse(message, deps);
    case "subscription.renew":
      return await handleSubscriptionRenew(message, deps);
    case "mail.send":
      return await handleMailSend(message, deps);
    case "export.run":
      return await handleExportRun(message, deps);
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
  const cron = (name: string, schedule: string, job: (deps: Deps) => Promise<unknown>) =>
    Deno.cron(name, schedule, async () => {
      if (stopped) return;
      try {
        await job(deps);
      } catch (err) {
        deps.log.error("cron job failed", { name, error: String(err) });
      }
    });
  cron("webhook-delivery-sweep", "* * * * *", handleWebhookSweep);
  cron("tron-scan-watchdog", "* * * * *", ensureTronScanLoop);
  cron("payin-expiry", "* * * * *", handlePayinExpiry);
  cron("outbound-sweep", "* * * * *", handleOutboundSweep);
  cron("bulk-sweep", "* * * * *", handleBulkSweep);
  cron("treasury-sweep", "* * * * *", handleSweepCron);
  cron("fiat-reconcile", "* * * * *", handleFiatReconcile);
  cron("fiat-disbursement-sweep", "* * * * *", handleDisbursementSweep);
  cron("paylink-release-sweep", "* * * * *", handlePaylinkReleaseSweep);
  cron("subscription-renewals", "* * * * *", handleSubscriptionCron);
  cron("mail-outbox-sweep", "* * * * *", handleMailSweep);
  cron("export-sweep", "* * * * *", handleExportSweep);
  cron("export-purge", "23 * * * *", handleExportPurge);
  cron("idempotency-purge", "17 * * * *", handleIdempotencyPurge);
  cron("rate-lock-purge", "41 * * * *", handleRateLockPurge);
  cron("rate-limit-purge", "*/5 * * * *", handleRateLimitPurge);
  // Start at once rather than at the first cron minute.
  queueMicrotask(() => {
    ensureTronScanLoop(deps).catch((err) => deps.log.error("scanner start failed", { error: String(err) }));
    // Live pay-ins then take addresses derived ahead from the first request on.
    fillAddressPool(deps, false).catch((err) =>
      deps.log.error("address pool fill failed", { error: String(err) })
    );
  });
  return {
    stop() {
      stopped = true;
    },
  };
}
