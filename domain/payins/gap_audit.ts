// The gap audit: every so often, the blocks the scanner recorded are compared with the chain, from where
// the last audit stopped up to the depth where the scanner no longer follows reorgs (the pay-in
// confirmations below its cursor). A block missing from the record (a hole) or recorded with another hash
// is read again from the chain and its transfers recorded; they are inserted once ever (by transaction and
// log index), so a block rescanned twice, or by two processes at once, changes nothing the second time.
// A transfer found this way is credited however late: it counts toward its pay-in if the block came before
// the pay-in's expiry, else it is late funds credited as a deposit (chain_events.ts decides, as for any
// block). The chain's blocks come a hundred per request (getblockbylimitnext): cheap enough to run each
// minute. A recorded hash that differs this deep is logged as an error for an operator: what was already
// credited from it is not taken back automatically.
import * as chain from "../../db/chain.ts";
import * as audit from "../../db/chain_audit.ts";
import { BLOCK_RANGE_LIMIT, type TronBlock } from "../../rails/tron/client.ts";
import { extractUsdtTransfers } from "../../rails/tron/transfers.ts";
import { recordOutgoingInBlock } from "../money_out/confirm.ts";
import { recordObservedTransfers } from "./chain_events.ts";
import { chainMovedOff, type ScannerDeps } from "./chain_scanner.ts";

export type AuditReport = { from: number; through: number; holes: number; mismatches: number };

/** Blocks checked per run at most: a day of TRON is 28,800 blocks, 288 range requests. */
export const AUDIT_MAX_BLOCKS = 2_000;

export async function auditChainGaps(
  deps: ScannerDeps,
  options: { maxBlocks?: number } = {},
): Promise<AuditReport | null> {
  const network = deps.config.tron.network;
  const last = await chain.lastBlock(deps.db);
  if (!last) return null;
  const state = await audit.auditState(deps.db, network);
  const from = state ? Number(state.audited_through) + 1 : await audit.lowestBlock(deps.db);
  if (from === null) return null;
  const deepest = Number(last.number) - deps.config.tron.payinConfirmations;
  const through = Math.min(deepest, from + (options.maxBlocks ?? AUDIT_MAX_BLOCKS) - 1);
  if (through < from) return null;

  const ours = await audit.blockHashes(deps.db, from, through);
  const theirs = new Map<number, TronBlock>();
  for (let start = from; start <= through; start += BLOCK_RANGE_LIMIT) {
    const end = Math.min(through + 1, start + BLOCK_RANGE_LIMIT);
    for (const b of await deps.tron.getBlockRange(start, end)) theirs.set(b.number, b);
  }
  let holes = 0;
  let mismatches = 0;
  let checked = from - 1;
  for (let n = from; n <= through; n++) {
    const block = theirs.get(n);
    if (!block) break; // the node gave fewer blocks: the next run starts here
    const recorded = ours.get(n);
    if (recorded !== block.hash) {
      // A recorded block the node differs on is first read again after the pool's probe: a node on another
      // fork is not the chain. Still in doubt, this run stops here and the next one checks again.
      if (recorded !== undefined && !(await chainMovedOff(deps, n, recorded))) break;
      await rescanBlock(deps, block);
      if (recorded === undefined) {
        holes++;
        deps.log.warn("gap audit: block missing from the scanner's record rescanned", { block: n, network });
      } else {
        mismatches++;
        deps.log.error("gap audit: recorded block differs from the chain below the confirmation depth", {
          block: n,
          recorded,
          chain: block.hash,
          network,
        });
      }
    }
    checked = n;
  }
  if (checked >= from) {
    await audit.advanceAudit(deps.db, network, checked, { holes, mismatches }, deps.clock.now());
  }
  return { from, through: checked, holes, mismatches };
}

/** One block's transfers and outgoing transactions recorded from the chain, and the block itself. */
async function rescanBlock(deps: ScannerDeps, block: TronBlock): Promise<void> {
  const infos = block.txCount > 0 ? await deps.tron.getTransactionInfosByBlock(block.number) : [];
  if (infos.length !== block.txCount) {
    throw new Error(
      `block ${block.number} has ${block.txCount} transactions but the node gave ${infos.length} infos`,
    );
  }
  const time = new Date(block.timestamp);
  await deps.db.tx(async (tx) => {
    const txDeps = { ...deps, db: tx };
    await recordObservedTransfers(
      txDeps,
      { number: block.number, hash: block.hash, time },
      extractUsdtTransfers(infos, deps.config.tron.usdtContract),
    );
    await recordOutgoingInBlock(tx, block.number, infos);
    await audit.putBlock(tx, { number: block.number, hash: block.hash, parentHash: block.parentHash, time });
  });
}
