// Ledger throughput: journals per second through postJournal against a baseline that writes THE SAME ROWS
// with no ledger logic, side by side in one run. Each journal is a settlement-shaped credit: the journal
// row, three entries (WORLD out, the merchant's wallet in, the platform fee in) and the wallet's cached
// balance moved. The baseline writes exactly those rows (journal, three entries, wallet UPDATE) in one
// plain statement: no replay check, no account lookups, no mode or balance checks, no lock ordering. The
// ratio is what the ledger's guarantees cost over the cheapest possible write of its rows.
//
// Two cases: "many merchants" (each concurrent worker books for its own merchant's wallet, as real traffic
// does) and "one hot wallet" (every worker credits the same wallet, which must serialize on that row, in
// the ledger and in the baseline alike), printed beside each other for honesty.
// `--smoke`: one short round at concurrency 50, to keep the bench from rotting in CI.
import type { Db } from "../db/mod.ts";
import { postJournal } from "../domain/ledger.ts";
import { newId } from "../domain/ids.ts";
import { createMerchant } from "../domain/merchants/mod.ts";
import {
  type BenchOptions,
  type BenchTarget,
  benchTargets,
  fmt,
  formatTable,
  interleaved,
  median,
  perSecond,
} from "./lib.ts";

const SMOKE = Deno.args.includes("--smoke");
const ROUNDS = SMOKE ? 1 : 5;
const MANY_CONCURRENCY = SMOKE ? [50] : [1, 10, 50];
const HOT_CONCURRENCY = 50;
/** Journals per measurement, sized so the whole bench stays around two minutes. */
const OPS: Record<Db["driver"], number> = SMOKE ? { pglite: 100, postgres: 200 } : {
  pglite: 300,
  postgres: 1500,
};
const WORLD = "acc_world_live_trc20";
const FEES = "acc_fees_live_trc20";
const AMOUNT = "1.000001";
const FEE = "0.015001";
const NET = "0.985000";

type Case = "many merchants" | "one hot wallet";
type Row = { target: string; case: Case; concurrency: number; ledger: number[]; baseline: number[] };
type Book = (worker: number, seq: number) => Promise<unknown>;

/** Runs `total` bookings with `concurrency` workers; worker w always books with wallet w. */
async function runWorkers(total: number, concurrency: number, book: Book): Promise<number> {
  let next = 0;
  const worker = async (w: number) => {
    while (next < total) await book(w, next++);
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, (_, w) => worker(w)));
  return performance.now() - start;
}

/** Live TRC20 wallets of `count` fresh merchants (one per concurrent worker). */
async function merchantWallets(
  db: Db,
  count: number,
): Promise<Array<{ merchantId: string; wallet: string }>> {
  const out = [];
  for (let m = 0; m < count; m++) {
    const { merchantId } = await createMerchant({ db }, { name: `Bench ${m}`, kybStatus: "APPROVED" });
    const [w] = await db.query<{ id: string }>(
      `SELECT id FROM accounts WHERE merchant_id = $1 AND is_sandbox = false AND rail = 'TRC20'`,
      [merchantId],
    );
    out.push({ merchantId, wallet: w.id });
  }
  return out;
}

async function benchTarget(target: BenchTarget): Promise<{ rows: Row[]; cold: Row }> {
  const { db } = target;
  const merchants = await merchantWallets(db, Math.max(...MANY_CONCURRENCY, HOT_CONCURRENCY));
  const run = crypto.randomUUID().slice(0, 8);

  const ledger = (pick: (w: number) => number): Book => (w, seq) => {
    const m = merchants[pick(w)];
    return postJournal(db, {
      reference: `bench:${run}:ledger:${seq}`,
      kind: "bench.credit",
      merchantId: m.merchantId,
      isSandbox: false,
      postings: [
        { accountId: WORLD, amount: `-${AMOUNT}` },
        { accountId: m.wallet, amount: NET },
        { accountId: FEES, amount: FEE },
      ],
    });
  };
  // The same rows, written as plainly as SQL allows: one statement, one round trip, nothing checked.
  const baseline = (pick: (w: number) => number): Book => (w, seq) => {
    const m = merchants[pick(w)];
    return db.query(
      `WITH j AS (
         INSERT INTO journals (id, reference, kind, merchant_id, is_sandbox) VALUES ($1, $2, 'bench.plain', $3, false)
         RETURNING id
       ), e AS (
         INSERT INTO entries (journal_id, account_id, amount, currency)
         SELECT j.id, x.account_id, x.amount::numeric, 'USDT_TRC20'
           FROM j, (VALUES ($4, $5), ($6, $7), ($8, $9)) AS x(account_id, amount)
       ), w AS (
         UPDATE accounts SET balance = balance + $7::numeric, updated_at = now() WHERE id = $6
       )
       SELECT id FROM j`,
      [
        newId("jrn"),
        `bench:${run}:plain:${seq}`,
        m.merchantId,
        WORLD,
        `-${AMOUNT}`,
        m.wallet,
        NET,
        FEES,
        FEE,
      ],
    );
  };
  const own = (w: number) => w;
  const hot = () => 0;
  const ops = OPS[db.driver];
  let seq = 0;
  const measure = (book: Book, concurrency: number) => async () => {
    // One worker books serially, so fewer journals give it as steady a figure in far less time.
    const n = concurrency === 1 ? Math.ceil(ops / 5) : ops;
    const base = seq;
    seq += n;
    return perSecond(n, await runWorkers(n, concurrency, (w, i) => book(w, base + i)));
  };

  // Cold: the very first bookings on a fresh database and pool, before anything has warmed up.
  const coldLedger = await measure(ledger(own), 50)();
  const coldBaseline = await measure(baseline(own), 50)();
  const cold: Row = {
    target: target.label,
    case: "many merchants",
    concurrency: 50,
    ledger: [coldLedger],
    baseline: [coldBaseline],
  };

  const rows: Row[] = [];
  const cases: Array<[Case, (w: number) => number, number[]]> = [
    ["many merchants", own, MANY_CONCURRENCY],
    ["one hot wallet", hot, [HOT_CONCURRENCY]],
  ];
  for (const [name, pick, concurrencies] of cases) {
    for (const concurrency of concurrencies) {
      const samples = await interleaved(ROUNDS, {
        ledger: measure(ledger(pick), concurrency),
        baseline: measure(baseline(pick), concurrency),
      });
      rows.push({ target: target.label, case: name, concurrency, ...samples } as Row);
    }
  }
  return { rows, cold };
}

function render(rows: Row[]): string {
  const range = (v: number[]) => v.length > 1 ? `${fmt(Math.min(...v))}-${fmt(Math.max(...v))}` : "-";
  return formatTable(
    ["database", "case", "conc.", "ledger/s", "(min-max)", "baseline/s", "(min-max)", "ledger/baseline"],
    rows.map((r) => {
      const ledger = median(r.ledger);
      const baseline = median(r.baseline);
      return [
        r.target,
        r.case,
        String(r.concurrency),
        fmt(ledger),
        range(r.ledger),
        fmt(baseline),
        range(r.baseline),
        fmt(ledger / baseline, 2),
      ];
    }),
  );
}

/** `options.smoke` and `--smoke` (read at load time for the sizes above) are the same flag from bench/mod.ts. */
export async function runLedgerBench(options: BenchOptions = { smoke: SMOKE }): Promise<void> {
  const started = performance.now();
  const targets = await benchTargets(options);

  const rows: Row[] = [];
  const colds: Row[] = [];
  for (const open of targets) {
    const target = await open();
    try {
      console.log(`${target.label}: measuring${SMOKE ? " (smoke)" : ""}...`);
      const { rows: measured, cold } = await benchTarget(target);
      rows.push(...measured);
      colds.push(cold);
    } finally {
      await target.cleanup();
    }
  }
  console.log(
    `\nJournals/s through postJournal vs the same rows written plainly (journal + 3 entries + wallet UPDATE ` +
      `in one statement). Medians of ${ROUNDS} interleaved round(s), ${OPS.pglite} journals per round on ` +
      `PGlite, ${OPS.postgres} on PostgreSQL (a fifth of that at concurrency 1)\n`,
  );
  console.log(render(rows));
  console.log("\nCold (first bookings on a fresh database and pool, before any warm-up):\n");
  console.log(render(colds));
  console.log(`\nTotal ${fmt((performance.now() - started) / 1000, 1)} s`);
}
