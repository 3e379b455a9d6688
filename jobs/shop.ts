// The shop's housekeeping: rate locks a day past their end are of no use to anyone (a checkout that
// named one was answered long ago) and are deleted every hour.
import * as shopDb from "../db/shop.ts";
import type { Deps } from "../domain/deps.ts";

export const RATE_LOCK_KEEP_MS = 24 * 3600 * 1000;

export async function handleRateLockPurge(deps: Deps): Promise<void> {
  await shopDb.deleteOldRateLocks(deps.db, new Date(deps.clock.now().getTime() - RATE_LOCK_KEEP_MS));
}
