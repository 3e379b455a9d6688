// One booking process of tests/unit/ledger_processes_test.ts: reads the shared list of journals on stdin,
// books all of them through postJournal in its own shuffled order, several at once, against the
// PostgreSQL schema named in its arguments, and prints one line of JSON: what each call answered.
// Every process gets the same list, so every reference is attempted once per process, all at once.
import { openPostgres } from "../../db/postgres.ts";
import { AppError } from "../../domain/errors.ts";
import { type Posting, postJournal } from "../../domain/ledger.ts";

export type WorkerJournal = {
  reference: string;
  merchantId: string;
  postings: Posting[];
};

/** What one call of postJournal answered for one reference. */
export type WorkerOutcome = "booked" | "replayed" | "insufficient";

const [url, schema, concurrencyArg] = Deno.args;
const journals: WorkerJournal[] = JSON.parse(await new Response(Deno.stdin.readable).text());
const concurrency = Number(concurrencyArg);
const db = await openPostgres(url, concurrency, schema);

// Fisher-Yates with Math.random: each process walks the list in an order of its own.
const order = journals.map((_, i) => i);
for (let i = order.length - 1; i > 0; i--) {
  const k = Math.floor(Math.random() * (i + 1));
  [order[i], order[k]] = [order[k], order[i]];
}

const outcomes: Record<string, WorkerOutcome> = {};
let next = 0;
async function worker(): Promise<void> {
  while (next < order.length) {
    const j = journals[order[next++]];
    try {
      const result = await postJournal(db, {
        reference: j.reference,
        kind: "test.process",
        merchantId: j.merchantId,
        isSandbox: false,
        postings: j.postings,
      });
      outcomes[j.reference] = result.booked ? "booked" : "replayed";
    } catch (err) {
      if (!(err instanceof AppError && err.code === "INSUFFICIENT_BALANCE")) throw err;
      outcomes[j.reference] = "insufficient";
    }
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
await db.close();
console.log(JSON.stringify(outcomes));
