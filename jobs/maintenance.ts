// Periodic upkeep: the deposit address pool, pay-in expiry, old idempotency records.
import { refillAddressPool } from "../domain/address_pool.ts";
import type { Deps, JobMessage } from "../domain/deps.ts";
import { purgeExpiredIdempotencyRecords } from "../domain/idempotency.ts";
import { expireDuePayins } from "../domain/payins/chain_events.ts";
import { reconcileFiatPayins } from "../domain/payins/settle_fiat.ts";
import { purgeRateLimitWindows } from "../domain/rate_limit.ts";

/** The cron safety net (and the fill at start): both modes' pools to their target. */
export async function handleAddressPoolTopUp(deps: Deps): Promise<void> {
  for (const isSandbox of [false, true]) await refillAddressPool(deps, isSandbox);
}

/** Asked for by pay-in creation when a pool runs low; several at once only overshoot by a batch. */
export async function handleAddressPoolRefill(
  message: Extract<JobMessage, { type: "address-pool.refill" }>,
  deps: Deps,
): Promise<void> {
  await refillAddressPool(deps, message.isSandbox === true);
}

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
}
