// Where a catch-up block's time goes (issue 24): the scanner bench's setup (50 exact payments a block,
// pay-ins waiting), then a catch-up whose every statement is timed. Prints per block: statements, time in
// the database (per statement kind) and the rest (JavaScript, node requests). A tool for profiling, not a
// measure: `deno run --allow-all bench/scanner_profile.ts [--only=pglite|postgres] [--blocks=N]`.
import type { Db } from "../db/mod.ts";
import { authenticateApiKey } from "../domain/auth.ts";
import { startBenchGateway } from "./gateway.ts";
import { benchTargets, fmt } from "./lib.ts";
import { createPayins, produceBlock, WatchedScanner } from "./scanner_setup.ts";

const arg = (name: string) => Deno.args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const args = { only: arg("only"), blocks: arg("blocks") };
const BLOCKS = Number(args.blocks ?? 40);
const PER_BLOCK = 50;

type Stat = { n: number; ms: number };
const stats = new Map<string, Stat>();
let recording = false;
let explained = 0;

function key(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, 70);
}

function timed(db: Db): Db {
  const wrap = (inner: Db): Db => ({
    driver: inner.driver,
    inTransaction: inner.inTransaction,
    async query(text, params, options) {
      if (
        recording && explained < 2 && inner.inTransaction && Deno.env.get("EXPLAIN") &&
        text.includes(Deno.env.get("EXPLAIN")!)
      ) {
        explained++;
        await inner.query("SAVEPOINT explain");
        const plan = await inner.query<Record<string, string>>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params);
        await inner.query("ROLLBACK TO SAVEPOINT explain");
        console.log(plan.map((r) => Object.values(r)[0]).join("\n"));
      }
      const t0 = performance.now();
      try {
        return await inner.query(text, params, options);
      } finally {
        if (recording) {
          const s = stats.get(key(text)) ?? { n: 0, ms: 0 };
          s.n++;
          s.ms += performance.now() - t0;
          stats.set(key(text), s);
        }
      }
    },
    exec: (text) => inner.exec(text),
    async tx(fn) {
      const t0 = performance.now();
      try {
        return await inner.tx((tx) => fn(wrap(tx)));
      } finally {
        if (recording) {
          const s = stats.get("(transaction, whole)") ?? { n: 0, ms: 0 };
          s.n++;
          s.ms += performance.now() - t0;
          stats.set("(transaction, whole)", s);
        }
      }
    },
    afterCommit: (fn) => inner.afterCommit(fn),
    close: () => inner.close(),
  });
  return wrap(db);
}

/** User and system CPU time of this process so far (Linux /proc), in ms: unlike wall time, not the load's. */
function processCpuMs(): number {
  const fields = Deno.readTextFileSync("/proc/self/stat").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in clock ticks of 10 ms
}

const options = { smoke: false, only: args.only as "pglite" | "postgres" | undefined };
for (const open of await benchTargets(options)) {
  const target = await open();
  try {
    const db = timed(target.db);
    const gw = await startBenchGateway(db);
    try {
      const caller = await authenticateApiKey(gw.deps, gw.merchant.liveSecret);
      const payins = await createPayins(gw, caller, 500 + 2 * BLOCKS * PER_BLOCK);
      let cursor = 0;
      const next = () => payins.slice(cursor, cursor += PER_BLOCK);
      const scanner = new WatchedScanner(gw, gw.devnet.chain.head.number);
      // Warm up: a first catch-up (the cold one), not recorded.
      let head = 0;
      for (let b = 0; b < BLOCKS; b++) head = (await produceBlock(gw, next())).number;
      await scanner.catchUp(head);
      await scanner.drain();
      for (let b = 0; b < BLOCKS; b++) head = (await produceBlock(gw, next())).number;
      const requests = gw.nodeRequests();
      recording = true;
      const cpu0 = processCpuMs();
      const t0 = performance.now();
      const first = scanner.followed + 1;
      await scanner.catchUp(head);
      const scannedAt = scanner.committedAt.get(head)!;
      recording = false;
      const wall = performance.now() - t0;
      const cpu = processCpuMs() - cpu0;
      const blocks = head - first + 1;
      console.log(
        `\n${target.label}: ${blocks} blocks in ${fmt(wall)} ms (${fmt(blocks / wall * 1000, 1)}/s), ` +
          `${fmt((gw.nodeRequests() - requests) / blocks, 2)} node req/block; last commit at ${scannedAt}; ` +
          `this process's CPU ${fmt(cpu / blocks, 2)} ms/block (on PGlite the database's too)`,
      );
      const rows = [...stats.entries()].sort((a, b) => b[1].ms - a[1].ms);
      let total = 0;
      let count = 0;
      for (const [k, s] of rows) {
        if (!k.startsWith("(")) {
          total += s.ms;
          count += s.n;
        }
        console.log(
          `${fmt(s.ms / blocks, 2).padStart(7)} ms/block ${fmt(s.n / blocks, 2).padStart(6)} x/block  ${k}`,
        );
      }
      console.log(
        `statements: ${fmt(count / blocks, 1)}/block, ${fmt(total / blocks, 2)} ms/block of ${
          fmt(wall / blocks, 2)
        } ms/block wall`,
      );
      stats.clear();
    } finally {
      await gw.close();
    }
  } finally {
    await target.cleanup();
  }
}
