// Analytics and statements over a big merchant's year: one merchant with N settled-or-not pay-ins spread
// over 365 days (each settled one with its ledger journal: WORLD out, wallet in, FEES in), beside other
// merchants with a tenth of that each, written straight in SQL. Then, timed (median and p99 of repeated
// calls, warm): GET /v1/analytics/volume's query by day and by week over the year, the summary over the
// year, and a one-day balance statement with its PDF. The target: analytics under 200 ms over a year.
// `--smoke`: a few thousand rows, to keep the bench from rotting in CI.
import type { Db } from "../db/mod.ts";
import { analyticsSummary, analyticsVolume, foldAnalyticsRollups } from "../domain/analytics/mod.ts";
import { balanceStatement } from "../domain/statements/statement.ts";
import { systemClock } from "../domain/clock.ts";
import { createMerchant } from "../domain/merchants/mod.ts";
import { statementPdf } from "../domain/statements/pdf.ts";
import { type BenchOptions, benchTargets, fmt, formatTable, median, percentile } from "./lib.ts";

const YEAR_START = new Date("2026-01-01T00:00:00Z");
const YEAR_END = new Date("2027-01-01T00:00:00Z");

/** Pay-ins of the big merchant (others get a tenth each); about 80 % settle, each with its journal. */
function sizes(smoke: boolean, driver: Db["driver"], rows?: number) {
  if (smoke) return { big: 3000, others: 3, runs: 3 };
  if (rows) return { big: rows, others: 3, runs: 7 };
  return driver === "postgres"
    ? { big: 1_000_000, others: 5, runs: 7 }
    : { big: 100_000, others: 3, runs: 7 };
}

async function seed(db: Db, merchantId: string, count: number) {
  const wallet = (await db.query<{ id: string }>(
    `SELECT id FROM accounts WHERE merchant_id = $1 AND NOT is_sandbox AND kind = 'WALLET' AND rail = 'TRC20'`,
    [merchantId],
  ))[0].id;
  // In slices, so no statement holds more than 20,000 pay-ins (and runs well within statement_timeout).
  for (let start = 0; start < count; start += 20_000) {
    const end = Math.min(count, start + 20_000);
    await db.query(
      `WITH p AS (
         INSERT INTO payins (id, merchant_id, is_sandbox, payment_method, status, currency, amount, amount_expected,
                             network_fee, amount_received, service_fee, net_amount, expires_at, confirmed_at, created_at)
         SELECT 'pay_' || $1 || lpad(g::text, 12, '0'), $1, false, 'USDT_TRC20',
                CASE WHEN g % 10 < 8 THEN 'CONFIRMED' WHEN g % 10 = 8 THEN 'EXPIRED' ELSE 'FAILED' END,
                'USDT_TRC20', 10, 11.5, 1.5, CASE WHEN g % 10 < 8 THEN 11.5 ELSE 0 END,
                CASE WHEN g % 10 < 8 THEN 0.15 ELSE 0 END, CASE WHEN g % 10 < 8 THEN 9.85 ELSE 0 END,
                t + interval '30 minutes', CASE WHEN g % 10 < 8 THEN t + interval '2 minutes' END, t
           FROM generate_series($3::int, $4::int - 1) AS g,
                LATERAL (SELECT $5::timestamptz + (g::float8 / $2::float8) * interval '365 days' AS t) AS x
         RETURNING id, confirmed_at
       ), j AS (
         INSERT INTO journals (id, reference, kind, merchant_id, is_sandbox, metadata, created_at)
         SELECT 'jrn_' || substr(id, 5), 'payin:' || id, 'PAYIN_SETTLEMENT', $1, false,
                jsonb_build_object('payinId', id), confirmed_at
           FROM p WHERE confirmed_at IS NOT NULL
         RETURNING id, created_at
       )
       INSERT INTO entries (journal_id, account_id, amount, currency, created_at)
       SELECT j.id, e.account_id, e.amount, 'USDT_TRC20', j.created_at
         FROM j, (VALUES ('acc_world_live_trc20', -11.5), ($6, 9.85), ('acc_fees_live_trc20', 1.65)) AS e(account_id, amount)`,
      [merchantId, count, start, end, YEAR_START, wallet],
    );
  }
  await db.query(
    `UPDATE accounts SET balance = (SELECT COALESCE(sum(amount), 0) FROM entries WHERE account_id = $1) WHERE id = $1`,
    [wallet],
  );
}

async function timed(runs: number, fn: () => Promise<unknown>): Promise<number[]> {
  await fn(); // warm
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return times;
}

export async function runAnalyticsBench(options: BenchOptions): Promise<void> {
  for (const open of await benchTargets(options)) {
    const target = await open();
    try {
      const db = target.db;
      const n = sizes(options.smoke, db.driver, options.rows);
      const seeded = performance.now();
      const big = await createMerchant({ db }, { name: "Big merchant", kybStatus: "APPROVED" });
      for (let i = 0; i < n.others; i++) {
        const other = await createMerchant({ db }, { name: `Other ${i}`, kybStatus: "APPROVED" });
        await seed(db, other.merchantId, Math.floor(n.big / 10));
      }
      await seed(db, big.merchantId, n.big);
      // What the minute cron does, run until nothing is left: the cron folds at most 200,000 deltas a
      // minute, so a history written over months is folded; one written in seconds here would not be.
      let folded = 0;
      for (let moved = -1; moved !== 0;) folded += moved = await foldAnalyticsRollups({ db });
      await db.exec(
        "ANALYZE payins; ANALYZE journals; ANALYZE entries; ANALYZE accounts; ANALYZE payin_daily;",
      );
      // What autovacuum does to insert-heavy tables: the visibility map the index-only sums need.
      if (db.driver === "postgres") await db.exec("VACUUM (ANALYZE) payins, entries, journals, payin_daily");
      console.log(
        `${target.label}: ${fmt(n.big)} pay-ins for the big merchant, ${n.others} others with ${
          fmt(n.big / 10)
        } ` +
          `each, seeded in ${fmt((performance.now() - seeded) / 1000, 1)} s (${
            fmt(folded)
          } roll-up deltas folded)`,
      );
      const scope = { merchantId: big.merchantId, isSandbox: false };
      const year = { from: YEAR_START.toISOString(), to: YEAR_END.toISOString() };
      const deps = { db, clock: systemClock };
      const rows: string[][] = [];
      const row = (name: string, times: number[]) =>
        rows.push([
          name,
          fmt(median(times), 1),
          fmt(percentile(times, 99), 1),
          median(times) < 200 ? "yes" : "NO",
        ]);
      row(
        "volume by day, a year",
        await timed(n.runs, () => analyticsVolume(deps, scope, { ...year, interval: "day" })),
      );
      row(
        "volume by week, a year",
        await timed(n.runs, () => analyticsVolume(deps, scope, { ...year, interval: "week" })),
      );
      row("summary, a year", await timed(n.runs, () => analyticsSummary(deps, scope, year)));
      const day = { from: "2026-06-01", to: "2026-06-02" };
      let lines = 0;
      row(
        "statement (JSON), one day",
        await timed(Math.min(n.runs, 5), () =>
          balanceStatement(deps, {
            merchantId: big.merchantId,
            mode: "live",
            currency: "USDT_TRC20",
            ...day,
          })),
      );
      row(
        "statement PDF, one day",
        await timed(Math.min(n.runs, 5), async () => {
          const pdf = await statementPdf(deps, {
            merchantId: big.merchantId,
            isSandbox: false,
            ...day,
            currency: "USDT_TRC20",
            lang: "en",
          });
          lines = pdf.statements[0].lines.length;
        }),
      );
      console.log(formatTable(["query (warm)", "p50 ms", "p99 ms", "p50 < 200 ms"], rows));
      console.log(`(the one-day statement holds ${fmt(lines)} movements)\n`);
    } finally {
      await target.cleanup();
    }
  }
}
