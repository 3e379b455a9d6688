// The scanner loop. TRON makes a block every 3 s but Deno.cron ticks once a minute, so the loop
// re-enqueues itself on the KV queue; cron only checks it is alive and starts a new one if not. A loop id
// in KV makes sure only one chain of messages survives (a stale or duplicated message ends its chain). Hosts
// with KV files of their own each keep a loop, but only the holder of the "tron-scanner" lease in
// PostgreSQL scans; the others stand by and take over within seconds of its lease running out.
import { scanChain } from "../domain/payins/chain_scanner.ts";
import type { Deps, JobMessage } from "../domain/deps.ts";
import { randomToken } from "../domain/ids.ts";
import { holdsLease } from "../domain/ops/leases.ts";

const LOOP_KEY = ["tron-scan-loop"];
/** A loop that has not ticked for this long is taken for dead and replaced. */
const DEAD_AFTER_MS = 30_000;
/** The scanner's lease, renewed on every tick of the leader's loop. */
const SCANNER_LEASE_MS = 15_000;
/** How often a standing-by loop asks for the lease. */
const STANDBY_MS = 2_000;

type LoopState = { loopId: string; tickedAt: number };

export async function handleTronScan(
  message: Extract<JobMessage, { type: "tron.scan" }>,
  deps: Deps,
): Promise<void> {
  const state = await deps.kv.get<LoopState>(LOOP_KEY);
  if (state.value?.loopId !== message.loopId) return; // a stale chain: let it end
  let behind = 0;
  const leader = await holdsLease(deps, "tron-scanner", SCANNER_LEASE_MS).catch((err) => {
    deps.log.warn("scanner lease unavailable; standing by", { error: String(err) });
    return false;
  });
  if (leader) {
    try {
      const report = await scanChain(deps, { maxBlocks: 100 });
      behind = report.behind + (report.settleBacklog ? 1 : 0);
      if (report.scanned || report.reorgs || report.settled || report.deposits) {
        deps.log.debug("tron scan", report);
      }
    } catch (err) {
      deps.log.warn("tron scan failed; will retry", { error: String(err) });
    }
  }
  const still = await deps.kv.atomic().check(state)
    .set(LOOP_KEY, { loopId: message.loopId, tickedAt: Date.now() })
    .commit();
  if (!still.ok) return;
  // Behind (or settlements left over): continue at once. Caught up: come back in about a third of a block.
  const blockMs = deps.config.tron.network === "devnet" ? deps.config.tron.devnetBlockMs || 1000 : 3000;
  const delayMs = !leader ? STANDBY_MS : behind > 0 ? 0 : Math.max(250, Math.floor(blockMs / 3));
  await deps.queue.enqueue(message, { delayMs });
}

/** Cron watchdog and start-up: starts a loop when none has ticked recently. */
export async function ensureTronScanLoop(deps: Deps): Promise<boolean> {
  const state = await deps.kv.get<LoopState>(LOOP_KEY);
  if (state.value && Date.now() - state.value.tickedAt < DEAD_AFTER_MS) return false;
  const loopId = randomToken(8);
  const res = await deps.kv.atomic().check(state).set(LOOP_KEY, { loopId, tickedAt: Date.now() }).commit();
  if (!res.ok) return false;
  await deps.queue.enqueue({ type: "tron.scan", loopId });
  return true;
}
