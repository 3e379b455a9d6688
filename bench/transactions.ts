// The transaction history at scale: one merchant with a generated history among other merchants (a
// million transactions on PostgreSQL, 100,000 on PGlite), then through the whole app (`app.request`: key
// lookup, rate limit, validation, the two queries, the JSON) one request at a time:
//   - list and filters: first page, a deep offset page, a keyset page deep in the history, each filter
//     alone, two together, a one-week range;
//   - search: rare terms (an e-mail, a phone, an externalRef drawn from the data), frequent ones (a mail
//     domain, a surname), a note with LIKE metacharacters, a term that matches nothing;
//   - the CSV export of the whole history (one job, its slices run one after the other as the queue would),
//     rows/s and peak memory above idle, on PostgreSQL in a fresh process started like the server
//     (bench/transactions_export.ts), then the download streamed and counted;
//   - EXPLAIN ANALYZE of the statements behind them (for docs/transactions.md).
// Targets (issue 21): list and search p99 under 50 ms; export memory under 100 MB above idle.
import { createMerchant } from "../domain/merchants/mod.ts";
import { encodeCursor } from "../domain/transactions/query.ts";
import { startBenchGateway } from "./gateway.ts";
import { type BenchOptions, benchTargets, fmt, formatTable, median, percentile } from "./lib.ts";
import { generateHistory } from "./transactions_data.ts";
import { benchExport, EXPORT_COLUMNS } from "./transactions_export.ts";
import { printPlans } from "./transactions_plans.ts";

const SIZES = {
  smoke: { target: 2_000, others: 2, perOther: 300, repeats: 5 },
  pglite: { target: 100_000, others: 9, perOther: 5_000, repeats: 40 },
  postgres: { target: 1_000_000, others: 9, perOther: 20_000, repeats: 100 },
};

type Case = { group: "list" | "search" | "worst"; name: string; queries: string[] };

async function timed(
  app: { request: (p: string, i: RequestInit) => Response | Promise<Response> },
  path: string,
  key: string,
) {
  const start = performance.now();
  const res = await app.request(path, { headers: { "x-api-key": key } });
  const body = await res.text();
  const ms = performance.now() - start;
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 300)}`);
  return { ms, body };
}

export async function runTransactionsBench(options: BenchOptions): Promise<void> {
  const results: string[][] = [];
  const exports: string[][] = [];
  for (const open of await benchTargets(options)) {
    const target = await open();
    const size = options.smoke
      ? SIZES.smoke
      : options.rows
      ? { ...SIZES[target.db.driver], target: options.rows, perOther: Math.ceil(options.rows / 20) }
      : SIZES[target.db.driver];
    const gw = await startBenchGateway(target.db);
    try {
      const db = target.db;
      const { merchantId, liveSecret: key } = gw.merchant;
      const genStart = performance.now();
      const endAt = new Date();
      await generateHistory(db, {
        merchantId,
        count: size.target,
        seed: 21,
        endAt,
        onProgress: (n) => n % 100_000 === 0 && console.log(`  ${target.label}: ${n} rows generated`),
      });
      await generateHistory(db, {
        merchantId,
        count: Math.ceil(size.target / 50),
        isSandbox: true,
        seed: 22,
        endAt,
      });
      for (let i = 0; i < size.others; i++) {
        const other = await createMerchant(gw.deps, { name: `Other ${i}`, kybStatus: "APPROVED" });
        await generateHistory(db, {
          merchantId: other.merchantId,
          count: size.perOther,
          seed: 100 + i,
          endAt,
        });
      }
      const genMs = performance.now() - genStart;
      // What autovacuum does to an insert-heavy table in production: statistics and the visibility map
      // (index-only scans skip the heap once it is set).
      await db.exec("VACUUM ANALYZE transactions");
      const [{ n: total }] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM transactions");
      console.log(
        `${target.label}: ${total} transactions written in ${fmt(genMs / 1000, 1)} s ` +
          `(${fmt(total / (genMs / 1000))}/s through the triggers)`,
      );

      // Terms drawn from the whole history at random: each matches a handful of rows.
      const sample = await db.query<{ e: string | null; p: string | null; r: string | null }>(
        `SELECT customer_email AS e, customer_phone AS p, external_ref AS r FROM transactions
          WHERE merchant_id = $1 AND NOT is_sandbox AND type = 'PAYIN' AND customer_email IS NOT NULL
          ORDER BY md5(id) LIMIT 100`,
        [merchantId],
      );
      const rare = sample.flatMap((s) => [s.e, s.p?.slice(4), s.r]).filter((t): t is string =>
        !!t && t.length >= 3
      );
      const deep = await db.query<{ created_at: Date; id: string }>(
        `SELECT created_at, id FROM transactions WHERE merchant_id = $1 AND NOT is_sandbox
          ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
        [merchantId, Math.floor(size.target * 0.8)],
      );
      const cursor = encodeCursor({ createdAt: deep[0].created_at, id: deep[0].id });
      const weekFrom = new Date(endAt.getTime() - 200 * 86_400_000).toISOString();
      const weekTo = new Date(endAt.getTime() - 193 * 86_400_000).toISOString();
      const q = (s: string) => `/v1/transactions?${s}`;
      const cases: Case[] = [
        { group: "list", name: "first page", queries: [q("limit=20")] },
        { group: "list", name: "page 50 (offset 980)", queries: [q("limit=20&page=50")] },
        { group: "list", name: "keyset page at 80% depth", queries: [q(`limit=20&cursor=${cursor}`)] },
        { group: "list", name: "type=WITHDRAWAL", queries: [q("type=WITHDRAWAL")] },
        { group: "list", name: "status=FAILED", queries: [q("status=FAILED")] },
        { group: "list", name: "currency=XOF", queries: [q("currency=XOF")] },
        {
          group: "list",
          name: "type=WITHDRAWAL&status=REJECTED",
          queries: [q("type=WITHDRAWAL&status=REJECTED")],
        },
        { group: "list", name: "one week (from/to)", queries: [q(`from=${weekFrom}&to=${weekTo}`)] },
        {
          group: "list",
          name: "one week + type=PAYOUT",
          queries: [q(`from=${weekFrom}&to=${weekTo}&type=PAYOUT`)],
        },
        { group: "list", name: "GET /v1/transactions/:id", queries: [`/v1/transactions/${deep[0].id}`] },
        {
          group: "search",
          name: "rare: e-mail, phone, externalRef",
          queries: rare.map((t) => q(`search=${encodeURIComponent(t)}`)),
        },
        { group: "search", name: "frequent: gmail.com", queries: [q("search=gmail.com")] },
        { group: "search", name: "frequent: traoré", queries: [q(`search=${encodeURIComponent("traoré")}`)] },
        {
          group: "search",
          name: "metacharacters: 50% a",
          queries: [q(`search=${encodeURIComponent("50% a")}`)],
        },
        { group: "search", name: "no match: zzqqxx", queries: [q("search=zzqqxx")] },
        { group: "search", name: "search + type=PAYIN", queries: [q("search=yahoo.fr&type=PAYIN")] },
        // The known slow kind: a prefix shared by a tenth of the references, whose matches are all old.
        { group: "worst", name: "old shared prefix: ORD-21-4", queries: [q("search=ORD-21-4")] },
      ];
      const byGroup: Record<string, number[]> = { list: [], search: [], worst: [] };
      for (const c of cases) {
        const samples: number[] = [];
        await timed(gw.app, c.queries[0], key); // first use of the statement: its plan, the pages
        for (let i = 0; i < size.repeats; i++) {
          samples.push((await timed(gw.app, c.queries[i % c.queries.length], key)).ms);
        }
        byGroup[c.group].push(...samples);
        results.push([
          target.label,
          `${c.group}: ${c.name}`,
          fmt(median(samples), 1),
          fmt(percentile(samples, 99), 1),
        ]);
      }
      for (const g of ["list", "search"]) {
        results.push([
          target.label,
          `ALL ${g}`,
          fmt(median(byGroup[g]), 1),
          fmt(percentile(byGroup[g], 99), 1),
        ]);
      }

      exports.push(await benchExport(target, gw, merchantId, key, endAt));
      await printPlans(db, target.label, merchantId, rare[0] ?? "gmail", weekFrom, weekTo, deep[0]);
    } finally {
      await gw.close();
      await target.cleanup();
    }
  }
  console.log(
    formatTable(["database", "request (1 at a time, through the app)", "p50 ms", "p99 ms"], results),
  );
  console.log();
  console.log(formatTable(EXPORT_COLUMNS, exports));
}
