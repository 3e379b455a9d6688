// Paylink orders whose pay-in expired or failed give their stock, promo and paylink uses back. The
// checkout's own path does it at once when it is told; this cron is the safety net (idempotent).
import type { Deps } from "../domain/deps.ts";
import { releaseEndedOrders } from "../domain/paylinks/checkout.ts";

export async function handlePaylinkReleaseSweep(deps: Deps): Promise<void> {
  const released = await releaseEndedOrders(deps);
  if (released > 0) deps.log.info("paylink orders released", { released });
}
