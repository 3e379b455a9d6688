// `deno task bench <name>`: runs one benchmark. Each lives in its own file and exports one run function;
// the shared timing, median and table helpers are in bench/lib.ts.
import { runLedgerBench } from "./ledger.ts";
import { runPayinBench } from "./payin.ts";
import { runScannerBench } from "./scanner.ts";
import { runWebhooksBench } from "./webhooks.ts";

const BENCHES: Record<string, { about: string; run: () => Promise<void> }> = {
  ledger: {
    about: "journals/s through postJournal vs plain INSERTs, concurrency 1/10/50",
    run: runLedgerBench,
  },
  payin: {
    about: "POST /v1/payments requests/s and p50/p99 vs a bare Hono INSERT route, concurrency 50",
    run: runPayinBench,
  },
  scanner: {
    about: "TRON blocks/s, node requests per block and block-to-CONFIRMING delay through the scanner",
    run: runScannerBench,
  },
  webhooks: {
    about: "signed webhook deliveries/s (10,000 queued) and commit-to-first-attempt p50/p99 vs bare fetches",
    run: runWebhooksBench,
  },
};

function usage(): string {
  const lines = Object.entries(BENCHES).map(([name, b]) => `  ${name.padEnd(10)} ${b.about}`);
  return `usage: deno task bench <name>\n\n${lines.join("\n")}`;
}

if (import.meta.main) {
  const name = Deno.args[0];
  const bench = name ? BENCHES[name] : undefined;
  if (!bench) {
    console.error(name ? `unknown bench: ${name}\n\n${usage()}` : usage());
    Deno.exit(2);
  }
  await bench.run();
  // Drivers may keep timers alive (pool idle timeouts); a bench is done when it has printed.
  Deno.exit(0);
}
