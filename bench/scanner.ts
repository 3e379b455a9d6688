// The TRON scanner (scanChain) against the in-process devnet, with USDT pay-ins waiting in the database.
// Every block carries 50 USDT transfers (devnet.transferUsdt x50, then devnet.mine(1)), each paying one
// waiting pay-in exactly. Three phases per database:
//
//   1. 100 waiting pay-ins, 2 blocks, 5 times: node requests per block and blocks/s with few pay-ins.
//   2. 10,000 waiting pay-ins, a backlog of 100 blocks mined at once, then scanChain until caught up:
//      node requests per block and blocks/s (to the commit of the last block; the settlement of the pay-ins
//      that are deep enough by then is timed apart).
//   3. Live: a block every LIVE_INTERVAL_MS while the scanner loops (polling every IDLE_POLL_MS when it has
//      nothing to do); per block, the delay from its timestamp to the commit of the scanner transaction
//      that moved its 50 pay-ins to CONFIRMING, median and p99.
//
// Pay-ins are created with the domain function (createUsdtPayin, so exactly what creation writes), many
// per transaction to keep the seed fast. Their addresses come from the pool: real BIP32 addresses of the
// live account, inserted with the pool's own SQL; every row carries the same real QR PNG because the
// scanner never reads it and drawing 10,500 of them would cost about 35 s per database.
// Node requests are counted by wrapping the TRON client's fetch (bench/gateway.ts).
import { ACCOUNT_INDEX } from "../domain/address_pool.ts";
import { insertAddresses } from "../db/deposit_addresses.ts";
import { lastBlock } from "../db/chain.ts";
import type { Db } from "../db/mod.ts";
import { authenticateApiKey, type Caller } from "../domain/auth.ts";
import { scanChain } from "../domain/chain_scanner.ts";
import { createUsdtPayin } from "../domain/payins/create.ts";
import { createDeriver } from "../rails/tron/hd.ts";
import { qrPngDataUrl } from "../rails/tron/qr.ts";
import { type BenchGateway, startBenchGateway } from "./gateway.ts";
import {
  type BenchOptions,
  type BenchTarget,
  benchTargets,
  fmt,
  formatTable,
  median,
  percentile,
} from "./lib.ts";

const TRANSFERS_PER_BLOCK = 50;
const SMALL_WAITING = 100;
let SMALL_REPS = 5;
let LARGE_WAITING = 10_000;
let BACKLOG_BLOCKS = 100;
let LIVE_BLOCKS = 30;
const LIVE_INTERVAL_MS = 300;
const IDLE_POLL_MS = 10;
const SEED_BATCH = 250;
const MNEMONIC = "test test test test test test test test test test test junk";

type Address = { address: string; addressHex: string; index: number };

type PhaseResult = {
  phase: string;
  waiting: number;
  blocks: number;
  /** Node requests per scanned block, idle polls (passes that found no new block) left out. */
  requestsPerBlock: number;
  idlePolls: number;
  blocksPerSecond: number;
  delays?: number[];
  /** Live: the median time between two produced blocks (signing 50 transfers shares the event loop). */
  intervalMs?: number;
  settle?: { payins: number; ms: number };
};

type TargetResult = {
  target: string;
  seed: { addresses: number; addressMs: number; payins: number; payinMs: number };
  phases: PhaseResult[];
  stillWaiting: number;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The Db seen by the scanner: as given, but tells when a block's transaction ("scanned") has committed. */
function observedDb(db: Db, onScanned: () => void): Db {
  return {
    driver: db.driver,
    query: (text, params) => db.query(text, params),
    exec: (text) => db.exec(text),
    async tx(fn) {
      const result = await db.tx(fn);
      if (result === "scanned") onScanned();
      return result;
    },
    afterCommit: (fn) => db.afterCommit(fn),
    close: () => db.close(),
  };
}

class Scanner {
  /** Commit time (epoch ms) of each block the scanner followed, by block number. */
  readonly committedAt = new Map<number, number>();
  #next: number;
  readonly deps;
  requests = 0;
  idlePolls = 0;

  constructor(readonly gw: BenchGateway, followedFrom: number) {
    this.#next = followedFrom + 1;
    this.deps = {
      ...gw.deps,
      db: observedDb(gw.deps.db, () => this.committedAt.set(this.#next++, Date.now())),
    };
  }

  get followed(): number {
    return this.#next - 1;
  }

  /** One scanChain pass; its node requests count unless it found nothing new (an idle poll). */
  async pass(): Promise<number> {
    const before = this.gw.nodeRequests();
    const report = await scanChain(this.deps);
    if (report.scanned === 0) this.idlePolls++;
    else this.requests += this.gw.nodeRequests() - before;
    return report.scanned;
  }

  async catchUp(head: number): Promise<void> {
    while (this.followed < head) await this.pass();
  }
}

/** Derives the pool's addresses (live account) once; the same rows go into every database. */
function deriveAddresses(count: number): Address[] {
  const deriver = createDeriver(MNEMONIC, ACCOUNT_INDEX.live);
  return Array.from({ length: count }, (_, index) => {
    const d = deriver.derive(index);
    return { address: d.address, addressHex: d.addressHex, index };
  });
}

async function seedAddresses(db: Db, addresses: Address[], qrPng: string): Promise<void> {
  for (let i = 0; i < addresses.length; i += 500) {
    await insertAddresses(
      db,
      addresses.slice(i, i + 500).map((a) => ({
        address: a.address,
        addressHex: a.addressHex,
        isSandbox: false,
        accountIndex: ACCOUNT_INDEX.live,
        index: a.index,
        qrPng,
      })),
    );
  }
}

/** Creates `count` live pay-ins of 10 USDT through createUsdtPayin; answers their addresses and amounts. */
async function createPayins(
  gw: BenchGateway,
  caller: Caller,
  count: number,
): Promise<Array<{ address: string; units: bigint }>> {
  const out: Array<{ address: string; units: bigint }> = [];
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
async function produceBlock(
  gw: BenchGateway,
  payees: Array<{ address: string; units: bigint }>,
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

async function benchTarget(target: BenchTarget, addresses: Address[], qrPng: string): Promise<TargetResult> {
  const { db } = target;
  const gw = await startBenchGateway(db);
  try {
    let start = performance.now();
    await seedAddresses(db, addresses, qrPng);
    const addressMs = performance.now() - start;
    const caller = await authenticateApiKey(gw.deps, gw.merchant.liveSecret);

    // A fresh devnet holds only its genesis block, which no scanner follows: one block to start from.
    gw.devnet.mine(1);
    await scanChain(gw.deps); // the scanner starts following at the head
    const scanner = new Scanner(gw, Number((await lastBlock(db))!.number));
    const phases: PhaseResult[] = [];
    const paid: string[] = [];
    let payinMs = 0;
    let payins = 0;

    // 1. Few waiting pay-ins.
    console.log(`${target.label}: ${SMALL_WAITING} waiting pay-ins, 2 blocks x ${SMALL_REPS}...`);
    {
      let blocks = 0;
      let scanMs = 0;
      const requestsBefore = scanner.requests;
      for (let rep = 0; rep < SMALL_REPS; rep++) {
        start = performance.now();
        const waiting = await createPayins(gw, caller, SMALL_WAITING);
        payinMs += performance.now() - start;
        payins += waiting.length;
        let head = 0;
        for (let b = 0; b < SMALL_WAITING / TRANSFERS_PER_BLOCK; b++) {
          const payees = waiting.slice(b * TRANSFERS_PER_BLOCK, (b + 1) * TRANSFERS_PER_BLOCK);
          head = (await produceBlock(gw, payees)).number;
          paid.push(...payees.map((p) => p.address));
          blocks++;
        }
        const from = scanner.followed;
        const startedAt = Date.now();
        await scanner.catchUp(head);
        scanMs += scanner.committedAt.get(head)! - startedAt;
        if (scanner.followed - from !== SMALL_WAITING / TRANSFERS_PER_BLOCK) {
          throw new Error("blocks skipped");
        }
      }
      phases.push({
        phase: "few waiting",
        waiting: SMALL_WAITING,
        blocks,
        requestsPerBlock: (scanner.requests - requestsBefore) / blocks,
        idlePolls: 0,
        blocksPerSecond: blocks / (scanMs / 1000),
      });
    }

    // 2. Many waiting pay-ins, a backlog.
    console.log(`${target.label}: creating ${LARGE_WAITING} waiting pay-ins...`);
    start = performance.now();
    const waiting = await createPayins(gw, caller, LARGE_WAITING);
    payinMs += performance.now() - start;
    payins += waiting.length;
    let cursor = 0;
    const nextPayees = () => {
      const payees = waiting.slice(cursor, cursor + TRANSFERS_PER_BLOCK);
      cursor += TRANSFERS_PER_BLOCK;
      paid.push(...payees.map((p) => p.address));
      return payees;
    };
    console.log(`${target.label}: mining ${BACKLOG_BLOCKS} blocks, then scanning them...`);
    {
      let head = 0;
      for (let b = 0; b < BACKLOG_BLOCKS; b++) head = (await produceBlock(gw, nextPayees())).number;
      const requestsBefore = scanner.requests;
      const startedAt = Date.now();
      const passStart = performance.now();
      await scanner.pass(); // up to 100 blocks, then settlement of what is deep enough
      const passMs = performance.now() - passStart;
      await scanner.catchUp(head);
      const scannedMs = scanner.committedAt.get(head)! - startedAt;
      const settled = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM payins WHERE status = 'CONFIRMED'",
      );
      phases.push({
        phase: "backlog",
        waiting: LARGE_WAITING,
        blocks: BACKLOG_BLOCKS,
        requestsPerBlock: (scanner.requests - requestsBefore) / BACKLOG_BLOCKS,
        idlePolls: 0,
        blocksPerSecond: BACKLOG_BLOCKS / (scannedMs / 1000),
        // The first pass scanned the whole backlog, then settled what was deep enough.
        settle: { payins: settled[0].n, ms: passMs - scannedMs },
      });
    }

    // 3. Live: a block every LIVE_INTERVAL_MS, the scanner looping beside the producer.
    console.log(`${target.label}: live, a block every ${LIVE_INTERVAL_MS} ms for ${LIVE_BLOCKS} blocks...`);
    {
      const produced: Array<{ number: number; timestamp: number }> = [];
      const requestsBefore = scanner.requests;
      const idleBefore = scanner.idlePolls;
      let producing = true;
      const producer = (async () => {
        const t0 = performance.now();
        for (let b = 0; b < LIVE_BLOCKS; b++) {
          await sleep(Math.max(0, t0 + (b + 1) * LIVE_INTERVAL_MS - performance.now()));
          produced.push(await produceBlock(gw, nextPayees()));
        }
        producing = false;
      })();
      const startedAt = Date.now();
      while (producing || scanner.followed < produced[produced.length - 1].number) {
        if ((await scanner.pass()) === 0) await sleep(IDLE_POLL_MS);
      }
      await producer;
      const last = produced[produced.length - 1].number;
      phases.push({
        phase: "live",
        waiting: LARGE_WAITING - BACKLOG_BLOCKS * TRANSFERS_PER_BLOCK,
        blocks: LIVE_BLOCKS,
        requestsPerBlock: (scanner.requests - requestsBefore) / LIVE_BLOCKS,
        idlePolls: scanner.idlePolls - idleBefore,
        blocksPerSecond: LIVE_BLOCKS / ((scanner.committedAt.get(last)! - startedAt) / 1000),
        intervalMs: median(produced.slice(1).map((p, i) => p.timestamp - produced[i].timestamp)),
        delays: produced.map((p) => scanner.committedAt.get(p.number)! - p.timestamp),
      });
    }

    // Every paid pay-in must have left AWAITING_PAYMENT.
    const still = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM payins WHERE address = ANY($1::text[]) AND status = 'AWAITING_PAYMENT'",
      [paid],
    );
    return {
      target: target.label,
      seed: { addresses: addresses.length, addressMs, payins, payinMs },
      phases,
      stillWaiting: still[0].n,
    };
  } finally {
    await gw.close();
  }
}

function render(results: TargetResult[]): string {
  const rows: string[][] = [];
  for (const r of results) {
    for (const p of r.phases) {
      rows.push([
        r.target,
        p.phase,
        String(p.waiting),
        String(p.blocks),
        fmt(p.requestsPerBlock, 2),
        p.phase === "live" ? `(${fmt(p.blocksPerSecond, 1)})` : fmt(p.blocksPerSecond, 1),
        p.delays ? fmt(median(p.delays)) : "",
        p.delays ? fmt(percentile(p.delays, 99)) : "",
        p.phase === "live" ? String(p.idlePolls) : "",
      ]);
    }
  }
  return formatTable(
    [
      "database",
      "phase",
      "waiting",
      "blocks",
      "node req/block",
      "blocks/s",
      "delay p50 ms",
      "delay p99 ms",
      "idle polls",
    ],
    rows,
  );
}

export async function runScannerBench(options: BenchOptions): Promise<void> {
  const started = performance.now();
  if (options.smoke) [SMALL_REPS, LARGE_WAITING, BACKLOG_BLOCKS, LIVE_BLOCKS] = [1, 400, 4, 3];
  const targets = await benchTargets(options);

  const start = performance.now();
  const addresses = deriveAddresses(SMALL_WAITING * SMALL_REPS + LARGE_WAITING);
  const qrPng = await qrPngDataUrl(addresses[0].address);
  const deriveMs = performance.now() - start;

  const results: TargetResult[] = [];
  for (const open of targets) {
    const target = await open();
    try {
      results.push(await benchTarget(target, addresses, qrPng));
    } finally {
      await target.cleanup();
    }
  }

  console.log(
    `\nScanner (scanChain) vs the in-process devnet, ${TRANSFERS_PER_BLOCK} USDT transfers per block, each ` +
      `paying one waiting pay-in.\nnode req/block leaves out idle polls; live delay = block timestamp to the ` +
      `commit that made its pay-ins CONFIRMING (scanner polling every ${IDLE_POLL_MS} ms when idle);\n` +
      `waiting = waiting pay-ins when the phase starts.\n`,
  );
  console.log(render(results));
  console.log("");
  console.log(`Derived ${addresses.length} pool addresses once in ${fmt(deriveMs / 1000, 1)} s (shared).`);
  for (const r of results) {
    const backlog = r.phases.find((p) => p.phase === "backlog")!;
    const live = r.phases.find((p) => p.phase === "live")!;
    console.log(
      `${r.target}: seeded ${r.seed.addresses} pool rows in ${fmt(r.seed.addressMs / 1000, 1)} s and ` +
        `${r.seed.payins} pay-ins via createUsdtPayin in ${fmt(r.seed.payinMs / 1000, 1)} s; after the ` +
        `backlog, settled ${backlog.settle!.payins} pay-ins in ${fmt(backlog.settle!.ms / 1000, 1)} s; ` +
        `live blocks came every ${fmt(live.intervalMs!)} ms (median; live blocks/s is bounded by that); ` +
        `paid pay-ins still AWAITING_PAYMENT: ${r.stillWaiting}`,
    );
  }
  const summary = results.map((r) => {
    const [few, backlog, live] = r.phases;
    return `${r.target} ${fmt(backlog.blocksPerSecond, 1)} blocks/s, ${fmt(few.requestsPerBlock, 2)} vs ` +
      `${fmt(backlog.requestsPerBlock, 2)} node req/block at ${few.waiting} vs ${backlog.waiting} waiting, ` +
      `live delay p50 ${fmt(median(live.delays!))} ms / p99 ${fmt(percentile(live.delays!, 99))} ms`;
  });
  console.log(`\nSummary: ${summary.join("; ")}.`);
  console.log(`Total ${fmt((performance.now() - started) / 1000, 1)} s`);
}
