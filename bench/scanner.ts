// The TRON scanner (scanChain, unmodified) against the in-process devnet, with 10,000 USDT pay-ins
// waiting. Every block carries 50 USDT transfers, each paying one waiting pay-in exactly. Three phases
// per database, in this order:
//
//   1. Cold catch-up: a fresh server whose scanner has never run finds a backlog of 100 blocks (its first
//      run looks back exactly that far) and follows them: node requests per block, blocks/s to the
//      commit of the last one, and the median and p99 of the time per block (commit to commit).
//   2. Live: a block every LIVE_INTERVAL_MS while the scanner loops (polling every IDLE_POLL_MS when it has
//      nothing to do), settling as it goes; per block, the delay from its timestamp to the commit of the
//      scanner transaction that moved its 50 pay-ins to CONFIRMING, median and p99.
//   3. Warm catch-up: the same as 1 on the now warm process and database, beside the cold figure; then
//      the same again with one block a transaction (the scanner before it batched blocks), side by side.
//   4. The fault column: the same catch-up through a pool of two nodes, one answering 429 to half its
//      requests (bench/scanner_fault.ts); node req/block counts the refused requests too.
//   5. The floor, beside it: per block, one transaction that only inserts the block's 50 transfers with one
//      multi-row INSERT into a bare copy of chain_transfers (no foreign keys, no pay-ins): the least any
//      scanner must write. "warm / floor" says what following the chain and moving pay-ins costs over it.
//
// The settlement of the pay-ins that are deep enough after a catch-up (the rest of the scanner's pass) is
// timed apart: it is the ledger's cost, not the following of the chain. Node requests are counted by
// wrapping the TRON client's fetch (bench/gateway.ts). `--smoke` runs the same phases tiny.
import { lastBlock } from "../db/chain.ts";
import { blocksPerTransactionOn } from "../domain/payins/chain_scanner.ts";
import { authenticateApiKey } from "../domain/auth.ts";
import { startBenchGateway } from "./gateway.ts";
import { FAULT_PHASE, halfThrottledPair } from "./scanner_fault.ts";
import {
  type BenchOptions,
  type BenchTarget,
  benchTargets,
  fmt,
  formatTable,
  median,
  percentile,
} from "./lib.ts";
import {
  createPayins,
  floorBlocksPerSecondOf,
  type Payee,
  produceBlock,
  sleep,
  WatchedScanner,
} from "./scanner_setup.ts";

const TRANSFERS_PER_BLOCK = 50;
const ONE_A_TRANSACTION = "catch-up, warm, 1 block/tx";
const FULL = { waiting: 10_000, coldBlocks: 100, liveBlocks: 30, warmBlocks: 50 };
const SMOKE = { waiting: 400, coldBlocks: 2, liveBlocks: 2, warmBlocks: 2 };
const LIVE_INTERVAL_MS = 300;
const IDLE_POLL_MS = 10;

type Sizes = typeof FULL;

type PhaseResult = {
  phase: string;
  /** Pay-ins waiting for payment when the phase starts. */
  waiting: number;
  blocks: number;
  /** Node requests per scanned block, idle polls (passes that found no new block) left out. */
  requestsPerBlock: number;
  blocksPerSecond: number;
  /** Commit to commit, per block. */
  blockMs: number[];
  delays?: number[];
  idlePolls?: number;
  /** Live: the median time between two produced blocks (signing 50 transfers shares the event loop). */
  intervalMs?: number;
  settle?: { payins: number; ms: number };
};

type TargetResult = {
  target: string;
  seedMs: number;
  phases: PhaseResult[];
  floorBlocksPerSecond: number;
  stillWaiting: number;
  /** Blocks a catch-up transaction follows at most on this database. */
  perTransaction: number;
};

async function countStatus(target: BenchTarget, status: string): Promise<number> {
  const rows = await target.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM payins WHERE status = $1",
    [status],
  );
  return rows[0].n;
}

/** Mines `blocks` blocks of payments at once, then lets the scanner follow them all. */
async function catchUp(
  phase: string,
  target: BenchTarget,
  scanner: WatchedScanner,
  payees: () => Payee[],
  blocks: number,
  /** Node requests counted elsewhere (the fault phase's pool counts refused ones too). */
  nodeRequests?: () => number,
): Promise<PhaseResult> {
  const waiting = await countStatus(target, "AWAITING_PAYMENT");
  const countedBefore = nodeRequests?.() ?? 0;
  const confirmedBefore = await countStatus(target, "CONFIRMED");
  let head = 0;
  for (let b = 0; b < blocks; b++) head = (await produceBlock(scanner.gw, payees())).number;
  const first = scanner.followed + 1;
  const requestsBefore = scanner.requests;
  const startedAt = Date.now();
  await scanner.catchUp(head); // each pass follows up to 100 blocks, then settles some of what is deep enough
  await scanner.drain();
  const doneAt = Date.now();
  const scannedMs = scanner.committedAt.get(head)! - startedAt;
  return {
    phase,
    waiting,
    blocks,
    requestsPerBlock: nodeRequests
      ? (nodeRequests() - countedBefore) / blocks
      : (scanner.requests - requestsBefore) / blocks,
    blocksPerSecond: blocks / (scannedMs / 1000),
    blockMs: scanner.blockTimes(first, head, startedAt),
    // Settlement after the last block's commit (none ran before it while one pass covered the backlog).
    settle: {
      payins: (await countStatus(target, "CONFIRMED")) - confirmedBefore,
      ms: doneAt - startedAt - scannedMs,
    },
  };
}

/** A block every LIVE_INTERVAL_MS, the scanner looping beside the producer. */
async function live(
  target: BenchTarget,
  scanner: WatchedScanner,
  payees: () => Payee[],
  blocks: number,
): Promise<PhaseResult> {
  const waiting = await countStatus(target, "AWAITING_PAYMENT");
  const produced: Array<{ number: number; timestamp: number }> = [];
  const requestsBefore = scanner.requests;
  const idleBefore = scanner.idlePolls;
  let producing = true;
  const producer = (async () => {
    const t0 = performance.now();
    for (let b = 0; b < blocks; b++) {
      await sleep(Math.max(0, t0 + (b + 1) * LIVE_INTERVAL_MS - performance.now()));
      produced.push(await produceBlock(scanner.gw, payees()));
    }
    producing = false;
  })();
  const startedAt = Date.now();
  while (producing || scanner.followed < produced[produced.length - 1].number) {
    if ((await scanner.pass()).scanned === 0) await sleep(IDLE_POLL_MS);
  }
  await producer;
  const first = produced[0].number;
  const last = produced[produced.length - 1].number;
  return {
    phase: "live",
    waiting,
    blocks,
    requestsPerBlock: (scanner.requests - requestsBefore) / blocks,
    blocksPerSecond: blocks / ((scanner.committedAt.get(last)! - startedAt) / 1000),
    blockMs: scanner.blockTimes(first, last, startedAt),
    idlePolls: scanner.idlePolls - idleBefore,
    intervalMs: median(produced.slice(1).map((p, i) => p.timestamp - produced[i].timestamp)),
    delays: produced.map((p) => scanner.committedAt.get(p.number)! - p.timestamp),
  };
}

async function benchTarget(
  target: BenchTarget,
  sizes: Sizes,
  count: number,
): Promise<TargetResult> {
  const gw = await startBenchGateway(target.db);
  try {
    console.log(`${target.label}: seeding ${count} pay-ins...`);
    const seedStart = performance.now();
    const caller = await authenticateApiKey(gw.deps, gw.merchant.liveSecret);
    const payins = await createPayins(gw, caller, count);
    const seedMs = performance.now() - seedStart;
    let cursor = 0;
    const nextPayees = () => payins.slice(cursor, cursor += TRANSFERS_PER_BLOCK);

    // The scanner has never run: it starts from the genesis block's number and looks back at its first run.
    const scanner = new WatchedScanner(gw, gw.devnet.chain.head.number);
    if (await lastBlock(target.db)) throw new Error("the scanner must start cold");
    console.log(`${target.label}: cold catch-up of ${sizes.coldBlocks} blocks...`);
    const phases = [await catchUp("catch-up, cold", target, scanner, nextPayees, sizes.coldBlocks)];
    console.log(
      `${target.label}: live, a block every ${LIVE_INTERVAL_MS} ms for ${sizes.liveBlocks} blocks...`,
    );
    phases.push(await live(target, scanner, nextPayees, sizes.liveBlocks));
    console.log(`${target.label}: warm catch-up of ${sizes.warmBlocks} blocks...`);
    phases.push(await catchUp("catch-up, warm", target, scanner, nextPayees, sizes.warmBlocks));
    // Beside it, the same catch-up with one block a transaction (the scanner before batching).
    console.log(`${target.label}: warm catch-up of ${sizes.warmBlocks} blocks, one block a transaction...`);
    scanner.blocksPerTransaction = 1;
    phases.push(await catchUp(ONE_A_TRANSACTION, target, scanner, nextPayees, sizes.warmBlocks));
    scanner.blocksPerTransaction = undefined;
    console.log(`${target.label}: catch-up of ${sizes.warmBlocks} blocks, one of two nodes 429 half...`);
    const pair = halfThrottledPair(gw);
    const direct = scanner.deps.tron;
    scanner.deps.tron = pair.tron;
    phases.push(await catchUp(FAULT_PHASE, target, scanner, nextPayees, sizes.warmBlocks, pair.requests));
    scanner.deps.tron = direct;
    const floorBlocksPerSecond = await floorBlocksPerSecondOf(
      target.db,
      sizes.warmBlocks,
      TRANSFERS_PER_BLOCK,
    );

    // Every paid pay-in must have left AWAITING_PAYMENT.
    const still = await target.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM payins WHERE address = ANY($1::text[]) AND status = 'AWAITING_PAYMENT'",
      [payins.slice(0, cursor).map((p) => p.address)],
    );
    if (still[0].n !== 0) throw new Error(`${still[0].n} paid pay-ins still AWAITING_PAYMENT`);
    return {
      target: target.label,
      seedMs,
      phases,
      floorBlocksPerSecond,
      stillWaiting: still[0].n,
      perTransaction: blocksPerTransactionOn(target.db),
    };
  } finally {
    await gw.close();
  }
}

function render(results: TargetResult[]): string {
  const rows = results.flatMap((r) =>
    r.phases.map((p) => [
      r.target,
      p.phase,
      String(p.waiting),
      String(p.blocks),
      fmt(p.requestsPerBlock, 2),
      p.phase === "live" ? `(${fmt(p.blocksPerSecond, 1)})` : fmt(p.blocksPerSecond, 1),
      p.blockMs.length ? fmt(median(p.blockMs), 1) : "",
      p.blockMs.length ? fmt(percentile(p.blockMs, 99), 1) : "",
      p.delays ? fmt(median(p.delays)) : "",
      p.delays ? fmt(percentile(p.delays, 99)) : "",
      p.phase === "catch-up, warm" ? fmt(r.floorBlocksPerSecond, 1) : "",
      p.phase === "catch-up, warm" ? fmt(p.blocksPerSecond / r.floorBlocksPerSecond, 2) : "",
    ])
  );
  return formatTable(
    [
      "database",
      "phase",
      "waiting",
      "blocks",
      "node req/block",
      "blocks/s",
      "ms/block p50",
      "p99",
      "delay p50 ms",
      "delay p99 ms",
      "floor blocks/s",
      "warm/floor",
    ],
    rows,
  );
}

export async function runScannerBench(options: BenchOptions): Promise<void> {
  const started = performance.now();
  const sizes = options.smoke ? SMOKE : FULL;
  const targets = await benchTargets(options);
  const paid = (sizes.coldBlocks + sizes.liveBlocks + 3 * sizes.warmBlocks) * TRANSFERS_PER_BLOCK;
  // Enough that `waiting` pay-ins are still unpaid when the live phase starts.
  const count = sizes.waiting + sizes.coldBlocks * TRANSFERS_PER_BLOCK;
  if (count < paid) throw new Error("not enough pay-ins for the blocks");

  const results: TargetResult[] = [];
  for (const open of targets) {
    const target = await open();
    try {
      results.push(await benchTarget(target, sizes, count));
    } finally {
      await target.cleanup();
    }
  }

  console.log(
    `\nScanner (scanChain) vs the in-process devnet, ${TRANSFERS_PER_BLOCK} USDT transfers per block, each ` +
      `paying one waiting pay-in.\nnode req/block leaves out idle polls; ms/block is commit to commit; live ` +
      `delay = block timestamp to the commit that made its pay-ins CONFIRMING (scanner polling every ` +
      `${IDLE_POLL_MS} ms when idle, settling as it goes);\nwaiting = pay-ins waiting when the phase starts.\n`,
  );
  console.log(render(results));
  console.log("");
  for (const r of results) {
    const [cold, liveRun, warm] = r.phases;
    console.log(
      `${r.target}: seeded ${count} pay-ins in ${fmt(r.seedMs / 1000, 1)} s; settlement after ` +
        `the cold catch-up: ${cold.settle!.payins} pay-ins in ${
          fmt(cold.settle!.ms / 1000, 1)
        } s, after the ` +
        `warm one ${warm.settle!.payins} in ${fmt(warm.settle!.ms / 1000, 1)} s; live blocks came every ` +
        `${
          fmt(liveRun.intervalMs!)
        } ms (median; live blocks/s is bounded by that), ${liveRun.idlePolls} idle polls`,
    );
  }
  const summary = results.map((r) => {
    const [cold, liveRun, warm] = r.phases;
    return `${r.target}: catch-up ${fmt(cold.blocksPerSecond, 1)} blocks/s cold, ${
      fmt(warm.blocksPerSecond, 1)
    } warm (cold/warm ${fmt(cold.blocksPerSecond / warm.blocksPerSecond, 2)}, warm/floor ${
      fmt(warm.blocksPerSecond / r.floorBlocksPerSecond, 2)
    }); ` +
      `${fmt(Math.max(...r.phases.map((p) => p.requestsPerBlock)), 2)} node req/block at most; live delay ` +
      `p50 ${fmt(median(liveRun.delays!))} ms / p99 ${fmt(percentile(liveRun.delays!, 99))} ms`;
  });
  for (const r of results) {
    const warm = r.phases.find((p) => p.phase === "catch-up, warm")!;
    const single = r.phases.find((p) => p.phase === ONE_A_TRANSACTION)!;
    summary.push(
      `${r.target}: warm catch-up ${fmt(warm.blocksPerSecond, 1)} blocks/s with up to ${r.perTransaction} ` +
        `blocks a transaction, ${fmt(single.blocksPerSecond, 1)} with one (${
          fmt(warm.blocksPerSecond / single.blocksPerSecond, 2)
        }x, same run)`,
    );
  }
  for (const r of results) {
    const fault = r.phases.find((p) => p.phase === FAULT_PHASE)!;
    summary.push(
      `${r.target}: with one of two nodes answering 429 to half its requests, catch-up ${
        fmt(fault.blocksPerSecond, 1)
      } blocks/s, ${
        fmt(fault.requestsPerBlock, 2)
      } node req/block (target at least 30 blocks/s, no block missed)`,
    );
  }
  console.log(`\nSummary (targets: at most 3 node req/block, catch-up at least 100 blocks/s):`);
  for (const line of summary) console.log(`  ${line}`);
  console.log(`Total ${fmt((performance.now() - started) / 1000, 1)} s`);
}
