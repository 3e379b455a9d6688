// Follows the TRON chain from a cursor kept in Postgres. It asks the node a constant number of questions
// however many pay-ins wait: the head once per pass, the blocks a hundred at a time when catching up
// (getblockbylimitnext), and all the transaction infos of a block that has transactions in one call, asked
// for a few blocks ahead. It matches USDT transfers to watched addresses through an index in a fixed
// handful of statements per transaction, sent a few at a time where they do not depend on each other, and
// one transaction follows up to BLOCKS_PER_TRANSACTION consecutive blocks when behind (one when live; fewer
// on PGlite, whose one connection the API shares). It notices reorgs by parent hash. The cursor row's lock
// makes one scanner advance at a time across processes, and the blocks' transfers commit with the cursor
// move, so a scanner killed mid-batch redoes those blocks exactly once.
import * as chain from "../../db/chain.ts";
import type { Db } from "../../db/mod.ts";
import { BLOCK_RANGE_LIMIT, type TronBlock, type TronClient, type TxInfo } from "../../rails/tron/client.ts";
import { extractUsdtTransfers, type UsdtTransfer } from "../../rails/tron/transfers.ts";
import type { Deps } from "../deps.ts";
import { creditDeposit, expireDuePayins, recordObservedBlocks, rewindTransfers } from "./chain_events.ts";
import { settlePayinFromChain } from "./settle.ts";
import { confirmMaturedOutbound, recordOutgoingInBlocks, rewindOutgoing } from "../money_out/confirm.ts";

export type ScannerDeps =
  & Pick<Deps, "db" | "queue" | "clock" | "config" | "log">
  & Partial<Pick<Deps, "tronNodes">>
  & {
    tron: TronClient;
  };

/** Blocks kept to recognise a fork; deeper reorgs than this are not followed. */
export const KEPT_BLOCKS = 200;
/**
 * How far back the very first scan starts: a pay-in created and paid in the seconds before the scanner's
 * first tick must still be seen (100 blocks is 5 minutes on TRON).
 */
export const FIRST_SCAN_LOOKBACK = 100;

/**
 * `doubted`: the next block did not follow the last one recorded, but read again after the node pool's
 * probe the recorded block stands (the node that served it was on another fork, or wrong): nothing is
 * rewound and the pass ends, the next one starting from a fresh head.
 */
export type StepResult = "scanned" | "idle" | "locked" | "reorg" | "doubted";

/** Blocks ahead whose transaction infos are asked for while the current one is recorded. */
export const INFOS_AHEAD = 4;

/** A block's transaction infos as the node gave them, checked against the block, and its USDT transfers. */
export type BlockContents = { infos: TxInfo[]; transfers: UsdtTransfer[] };

/** The node's answer for a block's infos does not match the block (a lagging node, another branch). */
class InfosMismatch extends Error {}

/**
 * The node's blocks up to one pass's head, fetched a range at a time and kept for the pass, and the
 * transaction infos of blocks ahead, asked for (and their transfers read out) before the scanner needs
 * them: a node far away costs one round trip per block at most, not two in a row, and while one batch's
 * statements run in the database the next batch's blocks are fetched and decoded. A block read here may
 * be stale by the time it is scanned; that is no worse than reading it one by one, because every block's
 * parent hash is checked against the block followed before it (so a reorg is still noticed), and its
 * infos against its own transaction ids.
 */
export class BlockWindow {
  #blocks = new Map<number, TronBlock>();
  #contents = new Map<number, Promise<BlockContents>>();
  /** The range request under way, so that a block asked for ahead is not fetched twice. */
  #fetching: { from: number; to: number; done: Promise<void> } | undefined;
  /** Requests started and not yet answered, asked-ahead ones too: a pass waits for them before it ends. */
  #outstanding = new Set<Promise<void>>();

  constructor(
    private readonly tron: TronClient,
    readonly head: TronBlock,
    private readonly usdtContract: string,
  ) {}

  async get(number: number): Promise<TronBlock | null> {
    if (number === this.head.number) return this.head;
    if (number > this.head.number) return null;
    if (!this.#blocks.has(number)) await this.#fetchRange(number);
    return this.#blocks.get(number) ?? null;
  }

  #fetchRange(from: number): Promise<void> {
    const under = this.#fetching;
    if (under && from >= under.from && from < under.to) return under.done;
    const to = Math.min(this.head.number, from + BLOCK_RANGE_LIMIT);
    const done = this.tron.getBlockRange(from, to).then((blocks) => {
      // Blocks below the new range are behind the scanner: forgotten, the window stays small.
      for (const n of this.#blocks.keys()) if (n < from) this.#blocks.delete(n);
      for (const b of blocks) this.#blocks.set(b.number, b);
    }).finally(() => {
      if (this.#fetching?.done === done) this.#fetching = undefined;
    });
    this.#fetching = { from, to, done };
    return this.#track(done);
  }

  /** The infos and transfers of `block` (asked for earlier if they were), and the next blocks' under way. */
  async contents(block: TronBlock): Promise<BlockContents> {
    for (let n = block.number + 1; n <= block.number + INFOS_AHEAD; n++) {
      const next = n === this.head.number ? this.head : this.#blocks.get(n);
      if (next) this.#ask(next);
    }
    try {
      const contents = await this.#ask(block);
      this.#contents.delete(block.number);
      return contents;
    } catch (error) {
      // A node that does not have the block yet may have it at the next ask.
      if (error instanceof InfosMismatch) this.#contents.delete(block.number);
      throw error;
    }
  }

  /**
   * Asks now for the infos of blocks `from` to `to` (those up to the head), fetching their range if it is
   * not held yet: the batch after the current one, ready when its turn comes.
   */
  askAhead(from: number, to: number, fetched = false): void {
    for (let n = from; n <= Math.min(to, this.head.number); n++) {
      const block = n === this.head.number ? this.head : this.#blocks.get(n);
      if (block) {
        this.#ask(block);
        continue;
      }
      // One range request at most for what is missing; a failure is met again when the block is needed.
      if (!fetched) this.#fetchRange(n).then(() => this.askAhead(n, to, true), () => {});
      return;
    }
  }

  #ask(block: TronBlock): Promise<BlockContents> {
    let contents = this.#contents.get(block.number);
    if (!contents) {
      const infos = block.txCount > 0
        ? this.#track(this.tron.getTransactionInfosByBlock(block.number))
        : Promise.resolve([]);
      contents = infos.then((list) => ({
        infos: checkInfos(block, list),
        transfers: extractUsdtTransfers(list, this.usdtContract),
      }));
      // Asked for ahead, it may fail before anyone waits for it: the scan that waits sees the error.
      contents.catch(() => {});
      this.#contents.set(block.number, contents);
    }
    return contents;
  }

  #track<T>(request: Promise<T>): Promise<T> {
    const answered = request.then(() => {}, () => {});
    this.#outstanding.add(answered);
    answered.then(() => this.#outstanding.delete(answered));
    return request;
  }

  /**
   * Waits until no request of this window is under way (one answered may start the next ask ahead), so
   * that a pass, failed or not, leaves nothing running behind it.
   */
  async drain(): Promise<void> {
    while (this.#outstanding.size > 0) await Promise.all(this.#outstanding);
  }

  /** After a reorg the kept blocks and infos may be of the abandoned branch. */
  forget(): void {
    this.#blocks.clear();
    this.#contents.clear();
  }
}

/** `infos` when they are exactly the block's: one per transaction, each of one of its transactions. */
function checkInfos(block: TronBlock, infos: TxInfo[]): TxInfo[] {
  // java-tron keeps one info per transaction of a block. Fewer is a node that does not have the block
  // yet (a lagging node answers []): recording it would skip its transfers for good, so wait instead.
  if (infos.length !== block.txCount) {
    throw new InfosMismatch(
      `block ${block.number} has ${block.txCount} transactions but the node gave ${infos.length} infos`,
    );
  }
  const ids = new Set(block.txIds);
  for (const info of infos) {
    if (!ids.has(info.id)) {
      throw new InfosMismatch(`transaction info ${info.id} is not in block ${block.number} ${block.hash}`);
    }
  }
  return infos;
}

/**
 * Blocks followed in one transaction at most when behind (a live scanner finds one at a time): a
 * catch-up pays the transaction's fixed statements once per batch rather than once per block. A crash
 * redoes the batch once, as it redid a block.
 */
export const BLOCKS_PER_TRANSACTION = 50;

/**
 * The same on embedded PGlite, whose one connection serves the API too: every request waits while a batch
 * is written (about 12 ms a block there), so its batches stay short.
 */
export const BLOCKS_PER_TRANSACTION_EMBEDDED = 20;

/** Blocks per catch-up transaction on this database. */
export function blocksPerTransactionOn(db: Pick<Db, "driver">): number {
  return db.driver === "pglite" ? BLOCKS_PER_TRANSACTION_EMBEDDED : BLOCKS_PER_TRANSACTION;
}

export type Step = { result: StepResult; blocks: number };

/** Scans the next block after the last one followed; the very first run starts a little before the head. */
export async function scanNextBlock(
  deps: ScannerDeps,
  head: TronBlock,
  window = new BlockWindow(deps.tron, head, deps.config.tron.usdtContract),
): Promise<StepResult> {
  return (await scanNextBlocks(deps, head, window, 1)).result;
}

/**
 * Follows the next blocks after the last one followed, up to `max` consecutive ones the node has (each
 * the child of the one before), in one transaction; the very first run starts a little before the head.
 */
export async function scanNextBlocks(
  deps: ScannerDeps,
  head: TronBlock,
  window: BlockWindow,
  max: number,
  /** Blocks the pass will follow after these at most: their infos are asked for while these are written. */
  ahead = 0,
): Promise<Step> {
  const network = deps.config.tron.network;
  return await deps.db.tx(async (tx): Promise<Step> => {
    const cursor = await chain.lockCursorAndLastBlock(tx, network);
    if (!cursor) return { result: "locked", blocks: 0 };
    const txDeps = { ...deps, db: tx };
    const { last } = cursor;
    const nextNumber = last ? Number(last.number) + 1 : Math.max(1, head.number - FIRST_SCAN_LOOKBACK + 1);
    if (nextNumber > head.number) return { result: "idle", blocks: 0 };
    const first = await window.get(nextNumber);
    if (!first) return { result: "idle", blocks: 0 };
    if (last && first.parentHash !== last.hash) {
      if (!(await chainMovedOff(deps, Number(last.number), last.hash))) {
        return { result: "doubted", blocks: 0 };
      }
      const forkPoint = await findForkPoint(txDeps, Number(last.number));
      await rewindTransfers(txDeps, forkPoint);
      await rewindOutgoing(tx, forkPoint);
      await chain.deleteBlocksAbove(tx, forkPoint);
      window.forget();
      deps.log.warn("chain reorganisation followed", { forkPoint, replacedFrom: forkPoint + 1, network });
      return { result: "reorg", blocks: 1 };
    }
    const blocks = [first];
    try {
      while (blocks.length < max) {
        const next = await window.get(first.number + blocks.length);
        // A block that is not the child of the one before is a reorg under way: the next step meets it.
        if (!next || next.parentHash !== blocks[blocks.length - 1].hash) break;
        blocks.push(next);
      }
    } catch (error) {
      // The blocks read so far are followed now; the next step asks again for the one that failed.
      deps.log.info("scanner batch cut short", {
        after: blocks[blocks.length - 1].number,
        error: String(error),
      });
    }
    // Asked for all at once; a batch keeps the blocks up to the first whose infos failed (the first
    // block's own failure fails the step, as it did one block at a time).
    const settled = await Promise.allSettled(blocks.map((b) => window.contents(b)));
    if (settled[0].status === "rejected") throw settled[0].reason;
    const failedAt = settled.findIndex((r) => r.status === "rejected");
    if (failedAt > 0) blocks.length = failedAt;
    const contents = settled.slice(0, blocks.length).map((r) =>
      (r as PromiseFulfilledResult<BlockContents>).value
    );
    const lastHere = blocks[blocks.length - 1].number;
    // The next batch's infos travel while this batch's statements run.
    if (ahead > 0) window.askAhead(lastHere + 1, lastHere + ahead);
    const observed = blocks.map((block, i) => ({
      number: block.number,
      hash: block.hash,
      time: new Date(block.timestamp),
      transfers: contents[i].transfers,
      infos: contents[i].infos,
      parentHash: block.parentHash,
    }));
    // Three independent writes of one transaction, sent together: the money out's inclusions and the
    // cursor move travel with the first statements of the transfers' (the pay-ins' locks still first).
    await chain.settleAll(
      [
        recordObservedBlocks(txDeps, observed),
        recordOutgoingInBlocks(tx, observed),
        chain.commitBlocks(tx, network, observed, KEPT_BLOCKS, head.number, deps.clock.now()),
      ] as const,
    );
    return { result: "scanned", blocks: blocks.length };
  });
}

/**
 * Whether the chain really moved off the block recorded at `number`, rather than one node being on another
 * fork or serving a bad block: the pool probes its nodes (one found forked is left out of reads) and the
 * block is read again. The recorded one standing, or the block not found: not a reorg. Nodes that differ
 * with no majority (two nodes, each on its own branch): no node's word is taken, the pass fails and the
 * next tick asks again. Without a pool (one node, the embedded devnet) the node's answer stands.
 */
export async function chainMovedOff(
  deps: ScannerDeps,
  number: number,
  recordedHash: string,
): Promise<boolean> {
  const verdict = await deps.tronNodes?.probe();
  const again = await deps.tron.getBlockByNumber(number);
  if (!again || again.hash === recordedHash) {
    deps.log.warn("a block did not follow the recorded one, which the chain read again still holds", {
      block: number,
    });
    return false;
  }
  if (verdict?.disagreement) {
    throw new Error(`TRON nodes disagree about the chain at block ${number}: no reorganisation followed`);
  }
  return true;
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

/**
 * Settlements (pay-ins, then deposits) per pass at most: after a long catch-up thousands may be due, and
 * new blocks (the CONFIRMING a customer waits to see) must not wait behind them all; 50 settlements are a
 * few hundred milliseconds. The rest are settled by the next passes, which the scan loop runs at once
 * (`settleBacklog`), so the throughput of settlement is unchanged.
 */
export const SETTLE_PER_PASS = 50;

/** Settles pay-ins and credits deposits whose transfers are now deep enough, up to SETTLE_PER_PASS. */
export async function settleMatured(
  deps: ScannerDeps,
  headNumber: number,
): Promise<{ settled: number; deposits: number; settleBacklog: boolean }> {
  const { payinConfirmations, depositConfirmations } = deps.config.tron;
  let settled = 0;
  const maturedAtOrBelow = headNumber - payinConfirmations + 1;
  const ready = await chain.payinsReadyToSettle(deps.db, headNumber, payinConfirmations, SETTLE_PER_PASS);
  for (const id of ready) {
    if (await settlePayinFromChain(deps, id, maturedAtOrBelow)) settled++;
  }
  const room = SETTLE_PER_PASS - ready.length;
  const due = room > 0
    ? await chain.depositsReadyToCredit(deps.db, headNumber, depositConfirmations, room)
    : [];
  let deposits = 0;
  for (const d of due) {
    if (await creditDeposit(deps, d.tx_id, d.log_index)) deposits++;
  }
  await confirmMaturedOutbound(deps, headNumber);
  return { settled, deposits, settleBacklog: ready.length + due.length >= SETTLE_PER_PASS };
}

export type ScanReport = {
  head: number;
  scanned: number;
  reorgs: number;
  behind: number;
  settled: number;
  deposits: number;
  /** More settlements were due than one pass does: run the next pass at once. */
  settleBacklog: boolean;
};

/** One pass: up to `maxBlocks` blocks, then settlement and expiry. Safe to run from several processes. */
export async function scanChain(
  deps: ScannerDeps,
  options: { maxBlocks?: number; blocksPerTransaction?: number } = {},
): Promise<ScanReport> {
  const head = await deps.tron.getNowBlock();
  const window = new BlockWindow(deps.tron, head, deps.config.tron.usdtContract);
  let scanned = 0;
  let reorgs = 0;
  const maxBlocks = options.maxBlocks ?? 100;
  const perTransaction = options.blocksPerTransaction ?? blocksPerTransactionOn(deps.db);
  // Each step scans blocks or follows a reorg; as many steps as blocks at most, as when one was one block.
  try {
    for (let i = 0; i < maxBlocks && scanned < maxBlocks; i++) {
      const max = Math.min(perTransaction, maxBlocks - scanned);
      const step = await scanNextBlocks(
        deps,
        head,
        window,
        max,
        Math.min(perTransaction, maxBlocks - scanned - max),
      );
      if (step.result === "scanned") scanned += step.blocks;
      else if (step.result === "reorg") reorgs++;
      else break;
    }
  } finally {
    await window.drain();
  }
  const last = await chain.lastBlock(deps.db);
  const followed = last ? Number(last.number) : head.number;
  const matured = await settleMatured(deps, followed);
  await expireDuePayins(deps);
  return { head: head.number, scanned, reorgs, behind: head.number - followed, ...matured };
}
