// `deno task bench <name> [--smoke]`: runs one benchmark; `deno task bench --list` prints their names, one a
// line (CI loops over them). Each lives in its own file and exports one run(options) function; the shared
// timing, median, table and target helpers are in bench/lib.ts. `--smoke` runs a bench at a tiny size, on
// one database only (PostgreSQL when DATABASE_URL is set, else embedded PGlite), so CI can run every bench
// on both drivers in a few minutes and none of them rots; its figures mean nothing.
import { runAnalyticsBench } from "./analytics.ts";
import { runBulkBench } from "./bulk.ts";
import { runConsoleBench } from "./console.ts";
import { runLedgerBench } from "./ledger.ts";
import { runPayinBench } from "./payin.ts";
import type { BenchOptions } from "./lib.ts";
import { runPayoutBench } from "./payout.ts";
import { runScannerBench } from "./scanner.ts";
import { runSweepBench } from "./sweep.ts";
import { runTransactionsBench } from "./transactions.ts";
import { runWebhooksBench } from "./webhooks.ts";

const BENCHES: Record<string, { about: string; run: (options: BenchOptions) => Promise<void> }> = {
  analytics: {
    about:
      "analytics volume and summary over a year of 1,000,000 pay-ins (PostgreSQL), a one-day statement PDF",
    run: runAnalyticsBench,
  },
  bulk: {
    about: "items/s of a 1,000-item USDT batch, execute to COMPLETED on the devnet, vs 1,000 single payouts",
    run: runBulkBench,
  },
  console: {
    about:
      "operator page: queue, search and an item's story with 10,000 items waiting (--history=N: among N finished transactions), cold, median and p99",
    run: runConsoleBench,
  },
  ledger: {
    about: "journals/s through postJournal vs plain INSERTs, concurrency 1/10/50",
    run: runLedgerBench,
  },
  payin: {
    about: "POST /v1/payments requests/s and p50/p99 vs a bare Hono INSERT route, concurrency 50",
    run: runPayinBench,
  },
  payout: {
    about:
      "payouts/s from accepted to broadcast and node requests per payout vs a bare sign-and-broadcast loop",
    run: runPayoutBench,
  },
  scanner: {
    about: "TRON blocks/s, node requests per block and block-to-CONFIRMING delay through the scanner",
    run: runScannerBench,
  },
  sweep: {
    about:
      "payouts needing sweeps on 3 s devnet blocks: confirmed, reverts, TRX and energy per sweep, p50/p99",
    run: runSweepBench,
  },
  transactions: {
    about:
      "GET /v1/transactions list/filter/search p50/p99 over a generated 1,000,000-row history, CSV export rows/s and memory",
    run: runTransactionsBench,
  },
  webhooks: {
    about: "signed webhook deliveries/s (10,000 queued) and commit-to-first-attempt p50/p99 vs bare fetches",
    run: runWebhooksBench,
  },
};

function usage(): string {
  const lines = Object.entries(BENCHES).map(([name, b]) => `  ${name.padEnd(10)} ${b.about}`);
  return `usage: deno task bench <name> [--smoke] [--seconds=N] [--only=pglite|postgres] [--rows=N] [--history=N]\n       deno task bench --list\n\n${
    lines.join("\n")
  }`;
}

if (import.meta.main) {
  const args = [...Deno.args];
  if (args.includes("--list")) {
    console.log(Object.keys(BENCHES).join("\n"));
    Deno.exit(0);
  }
  const smoke = args.includes("--smoke");
  const seconds = args.find((a) => a.startsWith("--seconds="))?.slice("--seconds=".length);
  const only = args.find((a) => a.startsWith("--only="))?.slice("--only=".length);
  const rows = args.find((a) => a.startsWith("--rows="))?.slice("--rows=".length);
  const history = args.find((a) => a.startsWith("--history="))?.slice("--history=".length);
  if (
    (seconds !== undefined && !(Number(seconds) > 0)) || (only && only !== "pglite" && only !== "postgres") ||
    (rows !== undefined && !(Number.isInteger(Number(rows)) && Number(rows) > 0)) ||
    (history !== undefined && !(Number.isInteger(Number(history)) && Number(history) >= 0))
  ) {
    console.error(usage());
    Deno.exit(2);
  }
  const rest = args.filter((a) =>
    a !== "--smoke" && !a.startsWith("--seconds=") && !a.startsWith("--only=") && !a.startsWith("--rows=") &&
    !a.startsWith("--history=")
  );
  const name = rest[0];
  const bench = name ? BENCHES[name] : undefined;
  if (!bench || rest.length !== 1) {
    console.error(name && !bench ? `unknown bench: ${name}\n\n${usage()}` : usage());
    Deno.exit(2);
  }
  await bench.run({
    smoke,
    seconds: seconds === undefined ? undefined : Number(seconds),
    only: only as "pglite" | "postgres" | undefined,
    rows: rows === undefined ? undefined : Number(rows),
    history: history === undefined ? undefined : Number(history),
  });
  // Drivers may keep timers alive (pool idle timeouts); a bench is done when it has printed.
  Deno.exit(0);
}
