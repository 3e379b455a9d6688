// Periodic upkeep: pay-in expiry, late fiat pay-ins, old idempotency records and rate-limit windows.
import type { Deps } from "../domain/deps.ts";
import { purgeExpiredIdempotencyRecords } from "../domain/idempotency.ts";
import { expireDuePayins } from "../domain/payins/chain_events.ts";
import { reconcileFiatPayins } from "../domain/payins/settle_fiat.ts";
import { purgeRateLimitWindows } from "../domain/limits/rate_limit.ts";
import { purgeNodeBudget } from "../db/node_budget.ts";

export async function handlePayinExpiry(deps: Deps): Promise<void> {
  await expireDuePayins(deps);
}

export async function handleIdempotencyPurge(deps: Deps): Promise<void> {
  await purgeExpiredIdempotencyRecords(deps);
}

/** Asks providers about card and mobile money pay-ins whose callback is late, and expires stale ones. */
export async function handleFiatReconcile(deps: Deps): Promise<void> {
  await reconcileFiatPayins(deps);
}

export async function handleRateLimitPurge(deps: Deps): Promise<void> {
  await purgeRateLimitWindows(deps);
  // The TRON node budget's windows (db/node_budget.ts): a minute is kept, the rest is history.
  await purgeNodeBudget(deps.db);
}
