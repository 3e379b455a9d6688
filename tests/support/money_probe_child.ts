// The process the crash test kills: it opens the test's database, sends one transfer through the money
// probe route and, at the chosen point, prints PAUSED and waits to be killed with SIGKILL.
// Argument: JSON {database: {url, schema} | {pgliteDir}, merchantId, walletId, design, pauseAt, key, amount}.
import { openPglite } from "../../db/pglite.ts";
import { openPostgres } from "../../db/postgres.ts";
import { systemClock } from "../../domain/clock.ts";
import { type Design, moneyProbeApp, type PausePoint, transferRequest } from "./money_probe.ts";

export type ChildDatabase = { url: string; schema: string } | { pgliteDir: string };
export type ChildArgs = {
  database: ChildDatabase;
  merchantId: string;
  walletId: string;
  design: Design;
  pauseAt: PausePoint;
  key: string;
  amount: string;
};

const args: ChildArgs = JSON.parse(Deno.args[0]);
const db = "url" in args.database
  ? await openPostgres(args.database.url, 2, args.database.schema)
  : await openPglite(args.database.pgliteDir);

const app = moneyProbeApp({
  deps: { db, clock: systemClock },
  merchantId: args.merchantId,
  walletId: args.walletId,
  design: args.design,
  pauseAt: args.pauseAt,
  async pause() {
    await Deno.stdout.write(new TextEncoder().encode("PAUSED\n"));
    // Killed here. The timeout only ends an orphan whose test died first.
    await new Promise((resolve) => setTimeout(resolve, 120_000));
    Deno.exit(3);
  },
});
const res = await app.request(transferRequest(args.key, args.amount));
await Deno.stdout.write(new TextEncoder().encode(`ANSWERED ${res.status}\n`));
await db.close();
