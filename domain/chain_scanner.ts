// Follows the TRON chain block by block from a cursor kept in Postgres. Per block it asks the node a
// constant number of questions (the block, and all its transaction infos in one call) however many
// pay-ins wait, matches USDT transfers to watched addresses through an index, and notices reorgs by
// parent hash. The cursor row's lock makes one scanner advance at a time across processes, and a block's
// transfers commit with the cursor move, so a scanner killed mid-block redoes that block exactly once.
import * as chain from "../db/chain.ts";
import type { TronBlock, TronClient } from "../rails/tron/client.ts";
import { extractUsdtTransfers } from "../rails/tron/transfers.ts";
import type { Deps } from "./deps.ts";
import {
  creditDeposit,
  expireDuePayins,
  recordObservedTransfers,
  rewindTransfers,
} from "./payins/chain_events.ts";
import { settlePayinFromChain } from "./payins/settle.ts";
import { confirmMaturedOutbound, recordOutgoingInBlock, rewindOutgoing } from "./money_out/confirm.ts";

export type ScannerDeps = Pick<Deps, "db" | "queue" | "clock" | "config" | "log"> & { tron: TronClient };

/** Blocks kept to recognise a fork; deeper reorgs than this are not followed. */
export const KEPT_BLOCKS = 200;
/**
 * How far back the very first scan starts: a pay-in created and paid in the seconds before the scanner's
 * first tick must still be seen (100 blocks is 5 minutes on TRON).
 */
export const FIRST_SCAN_LOOKBACK = 100;

export type StepResult = "scanned" | "idle" | "locked" | "reorg";

/** Scans the next block after the last one followed; the very first run starts a little before the head. */
export async function scanNextBlock(deps: ScannerDeps, head: TronBlock): Promise<StepResult> {
  const network = deps.config.tron.network;
  return await deps.db.tx(async (tx) => {
    if (!(await chain.lockCursor(tx, network))) return "locked";
    const txDeps = { ...deps, db: tx };
    const last = await chain.lastBlock(tx);
    const nextNumber = last ? Number(last.number) + 1 : Math.max(1, head.number - FIRST_SCAN_LOOKBACK + 1);
    if (nextNumber > head.number) return "idle";
    const block = nextNumber === head.number ? head : await deps.tron.getBlockByNumber(nextNumber);
    if (!block) return "idle";
    if (last && block.parentHash !== last.hash) {
      const forkPoint = await findForkPoint(txDeps, Number(last.number));
      await rewindTransfers(txDeps, forkPoint);
      await rewindOutgoing(tx, forkPoint);
      await chain.deleteBlocksAbove(tx, forkPoint);
      deps.log.warn("chain reorganisation followed", { forkPoint, replacedFrom: forkPoint + 1, network });
      return "reorg";
    }
    const infos = block.txCount > 0 ? await deps.tron.getTransactionInfosByBlock(block.number) : [];
    const blockTime = new Date(block.timestamp);
    const transfers = extractUsdtTransfers(infos, deps.config.tron.usdtContract)
      .map((t) => ({ ...t, blockHash: block.hash, blockTime }));
    await recordObservedTransfers(txDeps, transfers);
    await recordOutgoingInBlock(tx, block.number, infos);
    await chain.insertBlock(tx, {
      number: block.number,
      hash: block.hash,
      parentHash: block.parentHash,
      time: blockTime,
      keep: KEPT_BLOCKS,
    });
    await chain.saveCursor(tx, network, head.number, deps.clock.now());
    return "scanned";
  });
}

/** Walks back from `from` until our stored block hash matches the node's: the last common block. */
async function findForkPoint(deps: ScannerDeps, from: number): Promise<number> {
  for (let n = from; n > from - KEPT_BLOCKS; n--) {
    const ours = await chain.blockAt(deps.db, n);
    if (!ours) return n;
    const theirs = await deps.tron.getBlockByNumber(n);
    if (theirs && theirs.hash === ours.hash) return n;
  }
  return from - KEPT_BLOCKS;
}

/** Settles pay-ins and credits deposits whose transfers are now deep enough. */
export async function settleMatured(
  deps: ScannerDeps,
  headNumber: number,
): Promise<{ settled: number; deposits: number }> {
  const { payinConfirmations, depositConfirmations } = deps.config.tron;
  let settled = 0;
  const maturedAtOrBelow = headNumber - payinConfirmations + 1;
  for (const id of await chain.payinsReadyToSettle(deps.db, headNumber, payinConfirmations)) {
    if (await settlePayinFromChain(deps, id, maturedAtOrBelow)) settled++;
  }
  let deposits = 0;
  for (const d of await chain.depositsReadyToCredit(deps.db, headNumber, depositConfirmations)) {
    if (await creditDeposit(deps, d.tx_id, d.log_index)) deposits++;
  }
  await confirmMaturedOutbound(deps, headNumber);
  return { settled, deposits };
}

export type ScanReport = {
  head: number;
  scanned: number;
  reorgs: number;
  behind: number;
  settled: number;
  deposits: number;
};

/** One pass: up to `maxBlocks` blocks, then settlement and expiry. Safe to run from several processes. */
export async function scanChain(
  deps: ScannerDeps,
  options: { maxBlocks?: number } = {},
): Promise<ScanReport> {
  const head = await deps.tron.getNowBlock();
  let scanned = 0;
  let reorgs = 0;
  for (let i = 0; i < (options.maxBlocks ?? 100); i++) {
    const step = await scanNextBlock(deps, head);
    if (step === "scanned") scanned++;
    else if (step === "reorg") reorgs++;
    else break;
  }
  const last = await chain.lastBlock(deps.db);
  const followed = last ? Number(last.number) : head.number;
  const matured = await settleMatured(deps, followed);
  await expireDuePayins(deps);
  return { head: head.number, scanned, reorgs, behind: head.number - followed, ...matured };
}
