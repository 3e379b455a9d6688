// The operator console under a long queue (issue 22's measure): 10,000 payouts and withdrawals waiting
// (withdrawals in review, payouts above the approval amount, some waiting for the hot wallet) among other
// merchants' finished ones, then through the whole app (`app.request`: session cookie, the queries, the
// server-rendered HTML) one request at a time: the queue page, a search by externalRef, by id and by a
// term that matches nothing, and an item's story. The first request of each is printed apart (cold: plans
// and caches not warm); then medians and p99 over the repeats, against the 50 ms p99.
// `--history=N` (off by default, and in smoke): the same merchant also has N finished transactions in its
// history (bench/transactions_data.ts: pay-ins, payouts, withdrawals, conversions and bulk items through
// the real tables and triggers, over the year before), so the figures can be stated "with 10,000 items
// waiting and a million transactions" (`deno task bench console --only=postgres --history=1000000`).
import { createOperator } from "../domain/operators/accounts.ts";
import { tokenActor } from "../domain/operators/roles.ts";
import { signIn } from "../domain/operators/sign_in.ts";
import { totpCode } from "../domain/operators/totp.ts";
import { sessionCookieName } from "../http/operator_session.ts";
import { startBenchGateway } from "./gateway.ts";
import { type BenchOptions, benchTargets, fmt, formatTable, median, percentile } from "./lib.ts";
import { generateHistory } from "./transactions_data.ts";

const SIZES = {
  smoke: { waiting: 200, done: 200, repeats: 5 },
  full: { waiting: 10_000, done: 40_000, repeats: 200 },
};
const TARGET_P99_MS = 50;

export async function runConsoleBench(options: BenchOptions): Promise<void> {
  const size = options.smoke ? SIZES.smoke : SIZES.full;
  const rows: string[][] = [];
  for (const open of await benchTargets(options)) {
    const target = await open();
    const gw = await startBenchGateway(target.db);
    try {
      const db = target.db;
      const merchantId = gw.merchant.merchantId;
      // Waiting items: 60% withdrawals in review, 30% payouts above the approval amount (a third of them
      // above the four-eyes amount), 10% accepted and waiting for the hot wallet; ids fit the page's form.
      await db.query(
        `INSERT INTO outbound_transfers (id, kind, merchant_id, is_sandbox, status, currency, chain, amount, fee,
           debited, net_amount, destination_address, external_ref, requires_manual_approval, created_at,
           updated_at, waiting_reason, waiting_since)
         SELECT (CASE WHEN i % 10 < 6 THEN 'wdr_' ELSE 'pout_' END) || lpad(to_hex(i), 26, '0'),
                CASE WHEN i % 10 < 6 THEN 'WITHDRAWAL' ELSE 'PAYOUT' END, $1, false,
                CASE WHEN i % 10 < 6 THEN 'PENDING_REVIEW' WHEN i % 10 < 9 THEN 'PENDING' ELSE 'PROCESSING' END,
                'USDT_TRC20', 'TRON', CASE WHEN i % 3 = 0 THEN 60000 ELSE 100 + i % 900 END, 1,
                CASE WHEN i % 3 = 0 THEN 60001 ELSE 101 + i % 900 END, CASE WHEN i % 3 = 0 THEN 60000 ELSE 100 + i % 900 END,
                'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE', 'bench-ref-' || i, i % 10 BETWEEN 6 AND 8,
                now() - (i || ' seconds')::interval, now(),
                CASE WHEN i % 10 = 9 THEN 'HOT_WALLET_SHORT' END,
                CASE WHEN i % 10 = 9 THEN now() - interval '2 hours' END
           FROM generate_series(1, $2::int) AS i`,
        [merchantId, size.waiting],
      );
      // Finished items around them, which the queue's queries must not walk.
      await db.query(
        `INSERT INTO outbound_transfers (id, kind, merchant_id, is_sandbox, status, currency, chain, amount, fee,
           debited, net_amount, destination_address, external_ref, created_at, updated_at)
         SELECT 'pout_' || lpad(to_hex(1000000 + i), 26, '0'), 'PAYOUT', $1, false, 'CONFIRMED', 'USDT_TRC20',
                'TRON', 10, 1, 11, 10, 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE', 'done-ref-' || i,
                now() - (i || ' minutes')::interval, now()
           FROM generate_series(1, $2::int) AS i`,
        [merchantId, size.done],
      );
      const history = options.history ?? 0;
      if (history > 0) {
        const started = performance.now();
        await generateHistory(db, {
          merchantId,
          count: history,
          seed: 22,
          endAt: new Date(),
          finishedOnly: true,
          onProgress: (n) => n % 100_000 === 0 && console.log(`  ${target.label}: ${n} history rows`),
        });
        console.log(
          `${target.label}: ${history} finished transactions generated in ${
            fmt((performance.now() - started) / 1000, 1)
          } s`,
        );
        // What autovacuum does to insert-heavy tables: statistics and the visibility map.
        await db.exec("VACUUM ANALYZE transactions");
        await db.exec("VACUUM ANALYZE payins");
      }
      await db.query("ANALYZE outbound_transfers").catch(() => {});
      const op = await createOperator(gw.deps, tokenActor("bench"), {
        email: "bench@example.com",
        role: "admin",
        password: "bench operator password",
      });
      const { session } = await signIn(gw.deps, {
        email: op.email,
        password: "bench operator password",
        totp: totpCode(op.totpSecret, new Date()),
        clientAddress: "127.0.0.1",
      });
      const cookie = `${sessionCookieName(gw.deps.config)}=${session.token}`;
      const mid = Math.floor(size.waiting / 2);
      const cases: Array<[string, string]> = [
        ["queue page", "/admin/queue"],
        ["search externalRef", `/admin/search?q=bench-ref-${mid}`],
        ["search id", `/admin/search?q=wdr_${mid.toString(16).padStart(26, "0")}`],
        ["search, no match", "/admin/search?q=nothing-matches-this"],
        ["item story", `/admin/items/wdr_${(mid - (mid % 10)).toString(16).padStart(26, "0")}`],
      ];
      for (const [name, path] of cases) {
        const once = async () => {
          const start = performance.now();
          const res = await gw.app.request(path, { headers: { cookie } });
          const body = await res.text();
          const ms = performance.now() - start;
          if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 200)}`);
          return { ms, bytes: new TextEncoder().encode(body).length };
        };
        const cold = await once();
        const times: number[] = [];
        for (let i = 0; i < size.repeats; i++) times.push((await once()).ms);
        const p99 = percentile(times, 99);
        rows.push([
          target.label,
          name,
          fmt(cold.ms, 1),
          fmt(median(times), 1),
          fmt(p99, 1),
          p99 < TARGET_P99_MS ? "yes" : "NO",
          fmt(cold.bytes / 1024, 1),
        ]);
      }
    } finally {
      await gw.close();
      await target.cleanup();
    }
  }
  const history = options.history ?? 0;
  console.log(
    `\nOperator console, ${size.waiting.toLocaleString("en")} items waiting, ${
      size.done.toLocaleString("en")
    } finished` +
      (history > 0 ? `, a history of ${history.toLocaleString("en")} more transactions` : "") +
      `, ${size.repeats} requests per case after the cold one${
        options.smoke ? " (smoke: figures mean nothing)" : ""
      }\n`,
  );
  console.log(formatTable(
    ["database", "case", "cold ms", "median ms", "p99 ms", `p99 < ${TARGET_P99_MS} ms`, "page KB"],
    rows,
  ));
}
