// One merchant as the console shows it: settings (status, KYB, fees, rate limits), every API key with its
// state, and each webhook endpoint's delivery health: deliveries of the last 24 hours that succeeded or
// failed, and the backlog still pending with the age of its oldest.
import { webhookHealthRows } from "../../db/operator_views.ts";
import * as keysDb from "../../db/api_keys.ts";
import type { MerchantRow } from "../../db/merchants.ts";
import type { Deps } from "../deps.ts";
import { effectiveFees } from "../fees.ts";
import { managedKeyView } from "../keys/manage.ts";
import { DEFAULT_LIMITS } from "../limits/rate_limit.ts";
import { getMerchant } from "../merchants/mod.ts";

export const HEALTH_WINDOW_HOURS = 24;

export type MerchantOverview = {
  merchant: MerchantRow;
  fees: Record<string, string>;
  rateLimits: Record<string, number>;
  keys: Array<ReturnType<typeof managedKeyView>>;
  webhooks: Array<{
    endpointId: string;
    url: string;
    mode: "live" | "sandbox";
    status: string;
    consecutiveFailures: number;
    succeeded: number;
    failed: number;
    pending: number;
    oldestPendingSeconds: number | null;
  }>;
};

export async function merchantOverview(
  deps: Pick<Deps, "db" | "clock">,
  id: string,
): Promise<MerchantOverview> {
  const merchant = await getMerchant(deps, id);
  const now = deps.clock.now();
  const since = new Date(now.getTime() - HEALTH_WINDOW_HOURS * 3600_000);
  const [keys, health] = await Promise.all([
    keysDb.listMerchantKeys(deps.db, id),
    webhookHealthRows(deps.db, id, since),
  ]);
  return {
    merchant,
    fees: effectiveFees(merchant.fee_schedule),
    rateLimits: { ...DEFAULT_LIMITS, ...merchant.rate_limits },
    keys: keys.map((k) => managedKeyView(k, now)),
    webhooks: health.map((h) => ({
      endpointId: h.endpoint_id,
      url: h.url,
      mode: h.is_sandbox ? "sandbox" : "live",
      status: h.status,
      consecutiveFailures: h.consecutive_failures,
      succeeded: h.succeeded,
      failed: h.failed,
      pending: h.pending,
      oldestPendingSeconds: h.oldest_pending
        ? Math.max(0, Math.floor((now.getTime() - new Date(h.oldest_pending).getTime()) / 1000))
        : null,
    })),
  };
}
