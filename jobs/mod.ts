// Registers the background work: the single KV queue listener and the cron safety nets.
// Every handler is idempotent: KV messages may repeat or vanish, and several processes may run them.
import { fillAddressPool } from "../domain/payins/address_pool.ts";
import { foldAnalyticsRollups } from "../domain/analytics/mod.ts";
import { holdsLease } from "../domain/ops/leases.ts";
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
import { handleGapAudit } from "./tron_audit.ts";
import { handleWebhookDeliver, handleWebhookSweep } from "./webhook_delivery.ts";
import { handleRefundSend, handleRefundSweep } from "./refunds.ts";
import { handleDisputeSweep } from "./disputes.ts";

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
    case "refund.send":
      return await handleRefundSend(message, deps);
    default:
      deps.log.warn("unknown job message dropped", { message });
  }
}

function isJobMessage(value: unknown): value is JobMessage {
  return typeof value === "object" && value !== null &&
    typeof (value as { type?: unknown }).type === "string";
}

const CRON_LEASE_MS = 50_000;

/** The cron safety nets: name, schedule, job. */
export const CRONS: Array<[name: string, schedule: string, job: (deps: Deps) => Promise<unknown>]> = [
  ["webhook-delivery-sweep", "* * * * *", handleWebhookSweep],
  ["tron-scan-watchdog", "* * * * *", ensureTronScanLoop],
  ["payin-expiry", "* * * * *", handlePayinExpiry],
  ["outbound-sweep", "* * * * *", handleOutboundSweep],
  ["bulk-sweep", "* * * * *", handleBulkSweep],
  ["treasury-sweep", "* * * * *", handleSweepCron],
  ["fiat-reconcile", "* * * * *", handleFiatReconcile],
  ["fiat-disbursement-sweep", "* * * * *", handleDisbursementSweep],
  ["paylink-release-sweep", "* * * * *", handlePaylinkReleaseSweep],
  ["subscription-renewals", "* * * * *", handleSubscriptionCron],
  ["mail-outbox-sweep", "* * * * *", handleMailSweep],
  ["export-sweep", "* * * * *", handleExportSweep],
  ["dispute-sweep", "* * * * *", handleDisputeSweep],
  ["export-purge", "23 * * * *", handleExportPurge],
  ["idempotency-purge", "17 * * * *", handleIdempotencyPurge],
  ["rate-lock-purge", "41 * * * *", handleRateLockPurge],
  ["rate-limit-purge", "*/5 * * * *", handleRateLimitPurge],
  ["refund-sweep", "* * * * *", handleRefundSweep],
  ["analytics-fold", "* * * * *", foldAnalyticsRollups],
  ["tron-gap-audit", "* * * * *", handleGapAudit],
];

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
  // One host runs each tick: the first to take the cron's lease (shorter than a minute, so the next tick
  // is anyone's). The jobs are idempotent anyway; the lease saves the other hosts the duplicate work.
  const cron = (name: string, schedule: string, job: (deps: Deps) => Promise<unknown>) =>
    Deno.cron(name, schedule, async () => {
      if (stopped) return;
      try {
        if (!(await holdsLease(deps, `cron:${name}`, CRON_LEASE_MS))) return;
        await job(deps);
      } catch (err) {
        deps.log.error("cron job failed", { name, error: String(err) });
      }
    });
  for (const [name, schedule, job] of CRONS) cron(name, schedule, job);
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
