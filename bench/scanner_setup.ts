// What the scanner bench sets up and watches: waiting pay-ins, blocks full of exact payments, and a
// scanner whose node requests and block commits are observed from outside (it is run unmodified).
//
// Pay-ins are created with the domain function (createUsdtPayin, so exactly what creation writes, real
// BIP32 addresses of the live account included), many per transaction to keep the seed fast.
import type { Db } from "../db/mod.ts";
import type { Caller } from "../domain/auth.ts";
import { scanChain, type ScanReport } from "../domain/payins/chain_scanner.ts";
import { createUsdtPayin } from "../domain/payins/create.ts";
import type { BenchGateway } from "./gateway.ts";

const SEED_BATCH = 250;

export type Payee = { address: string; units: bigint };

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates `count` live pay-ins of 10 USDT through createUsdtPayin; answers their addresses and amounts. */
export async function createPayins(gw: BenchGateway, caller: Caller, count: number): Promise<Payee[]> {
  const out: Payee[] = [];
  for (let i = 0; i < count; i += SEED_BATCH) {
    await gw.deps.db.tx(async (tx) => {
      const deps = { ...gw.deps, db: tx };
      for (let j = i; j < Math.min(count, i + SEED_BATCH); j++) {
        const { payin } = await createUsdtPayin(deps, caller, false, { amount: "10" });
        out.push({ address: payin.address!, units: BigInt(Math.round(Number(payin.amount_expected) * 1e6)) });
      }
    });
  }
  return out;
}

/** Broadcasts one exact payment to each of `payees` and mines them into one block; answers that block. */
export async function produceBlock(
  gw: BenchGateway,
  payees: Payee[],
): Promise<{ number: number; timestamp: number }> {
  for (let i = 0; i < payees.length; i++) {
    gw.devnet.transferUsdt(payees[i].address, payees[i].units);
    // Signing is synchronous CPU work: yield now and then so the scanner is not held up for long.
    if (i % 10 === 9) await sleep(0);
  }
  gw.devnet.mine(1);
  const head = gw.devnet.chain.head;
  if (head.txs.length !== payees.length) throw new Error(`block ${head.number} has ${head.txs.length} txs`);
  return { number: head.number, timestamp: head.timestamp };
}

/**
 * The Db seen by the scanner: as given, but tells when a transaction that followed blocks has committed,
 * and how many it followed.
 */
function observedDb(db: Db, onScanned: (blocks: number) => void): Db {
  return {
    driver: db.driver,
    inTransaction: db.inTransaction,
    query: (text, params) => db.query(text, params),
    exec: (text) => db.exec(text),
    async tx(fn) {
      const result = await db.tx(fn);
      const step = result as { result?: unknown; blocks?: unknown } | undefined;
      if (step?.result === "scanned" && typeof step.blocks === "number") onScanned(step.blocks);
      return result;
    },
    afterCommit: (fn) => db.afterCommit(fn),
    close: () => db.close(),
  };
}

/** The real scanChain, watched: commit time of each block it follows, node requests it makes. */
export class WatchedScanner {
  /** Commit time (epoch ms) of each block the scanner followed, by block number. */
  readonly committedAt = new Map<number, number>();
  /** Each transaction that followed blocks: when it committed and the blocks it followed, the last one's number. */
  readonly commits: Array<{ at: number; blocks: number; last: number }> = [];
  #next: number;
  readonly deps;
  requests = 0;
  idlePolls = 0;
  /** Blocks followed in one transaction at most (scanChain's default unless set). */
  blocksPerTransaction: number | undefined;

  constructor(readonly gw: BenchGateway, followedFrom: number) {
    this.#next = followedFrom + 1;
    this.deps = {
      ...gw.deps,
      db: observedDb(gw.deps.db, (blocks) => {
        const at = Date.now();
        for (let i = 0; i < blocks; i++) this.committedAt.set(this.#next++, at);
        this.commits.push({ at, blocks, last: this.#next - 1 });
      }),
    };
  }

  get followed(): number {
    return this.#next - 1;
  }

  /** One scanChain pass; its node requests count unless it found nothing new (an idle poll). */
  async pass(): Promise<ScanReport> {
    const before = this.gw.nodeRequests();
    const report = await scanChain(this.deps, { blocksPerTransaction: this.blocksPerTransaction });
    if (report.scanned === 0) this.idlePolls++;
    else this.requests += this.gw.nodeRequests() - before;
    return report;
  }

  /** Passes until no settlement is left over. */
  async drain(): Promise<void> {
    while ((await this.pass()).settleBacklog);
  }

  async catchUp(head: number): Promise<void> {
    while (this.followed < head) await this.pass();
  }

  /**
   * Milliseconds per block within blocks from..to: from one commit to the next (for the first, from
   * `startedAt`, when the phase began), shared by the blocks the later transaction followed together (one
   * value per block). A catch-up that fits one transaction has one commit: its blocks share its time.
   */
  blockTimes(from: number, to: number, startedAt: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.commits.length; i++) {
      const c = this.commits[i];
      const firstHere = c.last - c.blocks + 1;
      if (firstHere < from || c.last > to) continue;
      const since = firstHere === from ? startedAt : this.commits[i - 1].at;
      const ms = (c.at - since) / c.blocks;
      for (let b = 0; b < c.blocks; b++) out.push(ms);
    }
    return out;
  }
}

/** Blocks per second of the floor: one transaction per block inserting its transfers into a bare table. */
export async function floorBlocksPerSecondOf(db: Db, blocks: number, perBlock: number): Promise<number> {
  await db.exec(`CREATE TABLE bench_transfer_floor (tx_id text, log_index integer, block_number bigint,
    block_hash text, to_address text, amount numeric, seen_at timestamptz, PRIMARY KEY (tx_id, log_index))`);
  const start = performance.now();
  for (let b = 0; b < blocks; b++) {
    const rows = Array.from({ length: perBlock }, (_, i) => ({
      tx_id: crypto.randomUUID().replaceAll("-", "").repeat(2),
      log_index: 0,
      to_address: `T${b}x${i}`,
      amount: "11.500000",
    }));
    await db.tx(async (tx) => {
      await tx.query(
        `INSERT INTO bench_transfer_floor (tx_id, log_index, block_number, block_hash, to_address, amount, seen_at)
         SELECT t.tx_id, t.log_index, $2, $3, t.to_address, t.amount, now()
           FROM jsonb_to_recordset($1::text::jsonb) AS t(tx_id text, log_index integer, to_address text, amount numeric)`,
        [JSON.stringify(rows), b, "ab".repeat(32)],
      );
    });
  }
  return blocks / ((performance.now() - start) / 1000);
}
