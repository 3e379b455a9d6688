// Ledger throughput: journals per second through postJournal (one WORLD -> wallet credit each) at
// concurrency 1, 10 and 50, against a bare baseline of the same number of single-row INSERTs through the
// same Db seam. The ratio says what the ledger's guarantees cost (a transaction, a unique reference, two
// locked balance updates, the entries) over the cheapest possible write.
import type { Db } from "../db/mod.ts";
import { postJournal } from "../domain/ledger.ts";
import { createMerchant } from "../domain/merchants.ts";
import {
  type BenchOptions,
  type BenchTarget,
  benchTargets,
  fmt,
  formatTable,
  interleaved,
  median,
  perSecond,
  runPool,
} from "./lib.ts";

let CONCURRENCY = [1, 10, 50];
let ROUNDS = 5;
/** Operations per measurement, sized so the whole bench stays well under two minutes. */
let OPS: Record<Db["driver"], number> = { pglite: 600, postgres: 1500 };

/** `--smoke`: a few seconds, only to show the bench still runs end to end. */
function useSmokeSizes(): void {
  [CONCURRENCY, ROUNDS, OPS] = [[1, 10], 1, { pglite: 40, postgres: 40 }];
}

type Row = { target: string; concurrency: number; ledger: number[]; baseline: number[] };

async function benchTarget(target: BenchTarget): Promise<Row[]> {
  const { db } = target;
  const { merchantId } = await createMerchant({ db }, { name: "Bench Merchant", kybStatus: "APPROVED" });
  const wallet = (await db.query<{ id: string }>(
    `SELECT id FROM accounts WHERE merchant_id = $1 AND is_sandbox = false AND rail = 'TRC20'`,
    [merchantId],
  ))[0].id;
  // The baseline's scratch table lives in the bench's own throwaway database or schema.
  await db.exec(`CREATE TABLE bench_baseline (
    id text PRIMARY KEY, amount numeric NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);

  let seq = 0;
  const journal = () => {
    const n = seq++;
    return postJournal(db, {
      reference: `bench:${n}`,
      kind: "bench.credit",
      merchantId,
      isSandbox: false,
      postings: [{ accountId: "acc_world_live_trc20", amount: "-1.000001" }, {
        accountId: wallet,
        amount: "1.000001",
      }],
    });
  };
  const insert = () =>
    db.query("INSERT INTO bench_baseline (id, amount) VALUES ($1, $2::numeric)", [
      `row:${seq++}`,
      "1.000001",
    ]);

  // One untimed warm-up of each, so connection setup and first-statement planning are not measured.
  await runPool(20, 10, journal);
  await runPool(20, 10, insert);

  const ops = OPS[db.driver];
  const rows: Row[] = [];
  for (const concurrency of CONCURRENCY) {
    const samples = await interleaved(ROUNDS, {
      ledger: async () => perSecond(ops, await runPool(ops, concurrency, journal)),
      baseline: async () => perSecond(ops, await runPool(ops, concurrency, insert)),
    });
    rows.push({ target: target.label, concurrency, ...samples } as Row);
  }
  return rows;
}

function render(rows: Row[]): string {
  return formatTable(
    [
      "database",
      "conc.",
      "ledger journals/s",
      "(min-max)",
      "baseline inserts/s",
      "(min-max)",
      "ledger/baseline",
    ],
    rows.map((r) => {
      const ledger = median(r.ledger);
      const baseline = median(r.baseline);
      return [
        r.target,
        String(r.concurrency),
        fmt(ledger),
        `${fmt(Math.min(...r.ledger))}-${fmt(Math.max(...r.ledger))}`,
        fmt(baseline),
        `${fmt(Math.min(...r.baseline))}-${fmt(Math.max(...r.baseline))}`,
        fmt(ledger / baseline, 2),
      ];
    }),
  );
}

export async function runLedgerBench(options: BenchOptions): Promise<void> {
  const started = performance.now();
  if (options.smoke) useSmokeSizes();
  const targets = await benchTargets(options);

  const rows: Row[] = [];
  for (const open of targets) {
    const target = await open();
    try {
      console.log(`${target.label}: measuring...`);
      rows.push(...await benchTarget(target));
    } finally {
      await target.cleanup();
    }
  }
  console.log(
    `\nLedger vs baseline, medians of ${ROUNDS} interleaved rounds ` +
      `(${OPS.pglite} ops per round on PGlite, ${OPS.postgres} on PostgreSQL)\n`,
  );
  console.log(render(rows));
  console.log(`\nTotal ${fmt((performance.now() - started) / 1000, 1)} s`);
}
