// Property test of the ledger under concurrency: random credits and debits across several merchants, with
// repeated references, fired in concurrent batches at one database, must leave the books balanced (every
// journal, and every currency across all accounts, sums to zero), every wallet's cached balance equal to
// its entries, no wallet negative, no reference booked twice, and each wallet holding exactly what the
// successful calls say it should.
import fc from "fast-check";
import type { Db } from "../../db/mod.ts";
import { AppError } from "../../domain/errors.ts";
import { postJournal } from "../../domain/ledger.ts";
import { Decimal, WALLET_PAIRS } from "../../domain/money.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

const MERCHANTS = 4;

type Op = {
  kind: "credit" | "debit_world" | "debit_fees";
  /** Which of the run's merchants the operation is for. */
  merchant: number;
  pair: number;
  isSandbox: boolean;
  /** Base units of 10^-6, so every amount has at most 6 decimals. */
  micros: bigint;
  ref: number;
};

const opArb: fc.Arbitrary<Op> = fc.record({
  // Credits twice as often as each debit kind, so wallets hold enough for many debits to succeed.
  kind: fc.oneof(
    { arbitrary: fc.constant("credit" as const), weight: 2 },
    fc.constant("debit_world" as const),
    fc.constant("debit_fees" as const),
  ),
  merchant: fc.integer({ min: 0, max: MERCHANTS - 1 }),
  pair: fc.integer({ min: 0, max: WALLET_PAIRS.length - 1 }),
  isSandbox: fc.boolean(),
  // Mostly small amounts so debits often succeed, sometimes huge ones so they often fail.
  micros: fc.oneof(
    fc.bigInt({ min: 1n, max: 1_000_000n }),
    fc.bigInt({ min: 1n, max: 500_000_000n }),
    fc.bigInt({ min: 1n, max: 10n ** 15n }),
  ),
  // Few distinct references, so repeats (replays, sometimes with different postings) are frequent.
  ref: fc.integer({ min: 0, max: 24 }),
});

const scenarioArb = fc.record({
  // size "max": without it fast-check keeps arrays near ten elements.
  ops: fc.array(opArb, { minLength: 1, maxLength: 40, size: "max" }),
  batch: fc.integer({ min: 1, max: 12 }),
});

function systemAccount(kind: "world" | "fees", isSandbox: boolean, rail: string): string {
  return `acc_${kind}_${isSandbox ? "test" : "live"}_${rail.toLowerCase()}`;
}

/**
 * How far each wallet's cached balance is from the sum of its entries (zero when the books are right),
 * and how far each currency and mode is from summing to zero over every account's balance as the ledger
 * reports it (wallets cached, platform accounts derived). Compared before and after each run, so a run
 * fails only for drift it caused itself: a run that broke the books must not make every shrinking attempt
 * after it fail too.
 */
async function balanceDrift(db: Db): Promise<Record<string, string>> {
  const rows = await db.query<{ id: string; drift: string }>(
    `SELECT a.id, (a.balance - coalesce(e.total, 0))::text AS drift FROM accounts a
       LEFT JOIN (SELECT account_id, sum(amount) AS total FROM entries GROUP BY account_id) e
         ON e.account_id = a.id
      WHERE a.kind = 'WALLET'
     UNION ALL
     SELECT 'sum:' || currency || ':' || is_sandbox, sum(balance)::text FROM account_balances
      GROUP BY currency, is_sandbox`,
  );
  return Object.fromEntries(rows.map((r) => [r.id, new Decimal(r.drift).toFixed()]));
}

/** The invariants of this run's journals and wallets, plus no new drift anywhere. */
async function checkInvariants(
  db: Db,
  run: { prefix: string; merchantIds: string[]; driftBefore: Record<string, string> },
): Promise<void> {
  const unbalanced = await db.query(
    `SELECT e.journal_id, e.currency, sum(e.amount)::text AS total FROM entries e
       JOIN journals j ON j.id = e.journal_id
      WHERE j.reference LIKE $1
      GROUP BY e.journal_id, e.currency HAVING sum(e.amount) <> 0`,
    [`${run.prefix}%`],
  );
  assertEquals(unbalanced.length, 0, `unbalanced journals: ${JSON.stringify(unbalanced)}`);
  const thin = await db.query(
    `SELECT j.id FROM journals j LEFT JOIN entries e ON e.journal_id = j.id
      WHERE j.reference LIKE $1 GROUP BY j.id HAVING count(e.id) < 2`,
    [`${run.prefix}%`],
  );
  assertEquals(thin.length, 0, `journals with fewer than two entries: ${JSON.stringify(thin)}`);
  const after = await balanceDrift(db);
  const drifted = Object.keys(after).filter((id) => after[id] !== (run.driftBefore[id] ?? "0"));
  assertEquals(
    drifted.map((id) => `${id}: ${after[id]}`),
    [],
    "cached balances moved away from the sum of their entries, or a currency stopped summing to zero",
  );
  const negative = await db.query(
    `SELECT id, balance::text FROM accounts WHERE merchant_id = ANY($1::text[]) AND kind = 'WALLET'
        AND balance < 0`,
    [run.merchantIds],
  );
  assertEquals(negative.length, 0, `negative wallets: ${JSON.stringify(negative)}`);
}

Deno.test("ledger property: concurrent random journals keep the books consistent", async () => {
  const gw = await startTestGateway();
  const db = gw.db;
  let run = 0;
  try {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ ops, batch }) => {
        run++;
        // Fresh merchants per run keep each run's model independent of the others; several per run, so
        // concurrent journals of different merchants share the platform accounts, as in real life.
        const merchantIds: string[] = [];
        for (let m = 0; m < MERCHANTS; m++) {
          merchantIds.push((await gw.createMerchant(`Property ${run}.${m}`)).merchantId);
        }
        const wallets = await db.query<
          { id: string; merchant_id: string; is_sandbox: boolean; currency: string; rail: string }
        >(
          "SELECT id, merchant_id, is_sandbox, currency, rail FROM accounts WHERE merchant_id = ANY($1::text[])",
          [merchantIds],
        );
        const walletOf = (op: Op) => {
          const pair = WALLET_PAIRS[op.pair];
          const w = wallets.find((x) =>
            x.merchant_id === merchantIds[op.merchant] && x.is_sandbox === op.isSandbox &&
            x.currency === pair.currency && x.rail === pair.rail
          );
          assert(w, "merchant wallet missing");
          return w;
        };
        const prefix = `prop:${run}:${crypto.randomUUID()}:`;
        const driftBefore = await balanceDrift(db);
        const outcomes: Array<{ op: Op; booked: boolean }> = [];

        const attempt = async (op: Op) => {
          const wallet = walletOf(op);
          const amount = new Decimal(op.micros.toString()).div(1_000_000);
          const counter = op.kind === "debit_fees" ? "fees" : "world";
          const signed = op.kind === "credit" ? amount : amount.neg();
          try {
            const result = await postJournal(db, {
              reference: `${prefix}${op.ref}`,
              kind: `test.${op.kind}`,
              merchantId: merchantIds[op.merchant],
              isSandbox: op.isSandbox,
              postings: [
                { accountId: systemAccount(counter, op.isSandbox, wallet.rail), amount: signed.neg() },
                { accountId: wallet.id, amount: signed },
              ],
            });
            outcomes.push({ op, booked: result.booked });
          } catch (err) {
            if (!(err instanceof AppError && err.code === "INSUFFICIENT_BALANCE")) throw err;
            assert(op.kind !== "credit", "a credit can never be refused for balance");
            outcomes.push({ op, booked: false });
          }
        };

        for (let i = 0; i < ops.length; i += batch) {
          await Promise.all(ops.slice(i, i + batch).map(attempt));
        }

        await checkInvariants(db, { prefix, merchantIds, driftBefore });

        // No reference booked twice, and the database agrees with the callers about which ones were.
        const bookedRefs = outcomes.filter((o) => o.booked).map((o) => o.op.ref);
        assertEquals(new Set(bookedRefs).size, bookedRefs.length, "a reference reported booked twice");
        const journals = await db.query<{ n: string }>(
          "SELECT count(*) AS n FROM journals WHERE reference LIKE $1",
          [`${prefix}%`],
        );
        assertEquals(Number(journals[0].n), bookedRefs.length);

        // Each wallet holds exactly the sum of the operations that succeeded on it.
        const model = new Map<string, Decimal>(wallets.map((w) => [w.id, new Decimal(0)]));
        for (const { op, booked } of outcomes) {
          if (!booked) continue;
          const amount = new Decimal(op.micros.toString()).div(1_000_000);
          const id = walletOf(op).id;
          model.set(id, model.get(id)!.plus(op.kind === "credit" ? amount : amount.neg()));
        }
        const actual = await db.query<{ id: string; balance: string }>(
          "SELECT id, balance::text FROM accounts WHERE merchant_id = ANY($1::text[])",
          [merchantIds],
        );
        for (const row of actual) {
          assert(
            new Decimal(row.balance).equals(model.get(row.id)!),
            `wallet ${row.id}: ${row.balance} in the database, ${model.get(row.id)} in the model`,
          );
        }
      }),
      { numRuns: 25 },
    );
  } finally {
    await gw.close();
  }
});
