// Several gateway processes booking at once, as N containers behind a balancer would: four `deno run`
// subprocesses (tests/unit/ledger_process_worker.ts) book the same list of journals for eight merchants
// into one throwaway PostgreSQL schema, each in its own order, eight at a time. Afterwards the books must
// hold: every reference booked exactly once across all processes (credits always, debits at most once),
// the processes agree with the database about which, every journal and every currency sums to zero, no
// wallet is negative, and each wallet holds exactly what the booked journals put in it.
import postgres from "postgres";
import { readDatabaseConfig } from "../../config.ts";
import { migrate } from "../../db/migrate.ts";
import { openPostgres } from "../../db/postgres.ts";
import { createMerchant } from "../../domain/merchants/mod.ts";
import { Decimal } from "../../domain/money.ts";
import { assert, assertEquals } from "../assert.ts";
import type { WorkerJournal, WorkerOutcome } from "./ledger_process_worker.ts";

const PROCESSES = 4;
const CONCURRENCY_PER_PROCESS = 8;
const MERCHANTS = 8;
const JOURNALS = 240;
const WORKER = new URL("./ledger_process_worker.ts", import.meta.url);
const REPO_ROOT = new URL("../../", import.meta.url);

const databaseUrl = readDatabaseConfig().databaseUrl;

/** Credits (world in, fee out) and debits (back to the world) spread over the merchants' live wallets. */
function journalList(wallets: Array<{ merchantId: string; walletId: string }>): WorkerJournal[] {
  return Array.from({ length: JOURNALS }, (_, n) => {
    const { merchantId, walletId } = wallets[n % wallets.length];
    // Amounts vary with n, with six decimals, so no two journals move the same sum by accident.
    const amount = new Decimal(n + 1).times("1.000001");
    if (n % 5 < 3) {
      const fee = amount.times("0.015").toDecimalPlaces(6, Decimal.ROUND_UP);
      return {
        reference: `proc:credit:${n}`,
        merchantId,
        postings: [
          { accountId: "acc_world_live_trc20", amount: amount.neg().toFixed() },
          { accountId: walletId, amount: amount.minus(fee).toFixed() },
          { accountId: "acc_fees_live_trc20", amount: fee.toFixed() },
        ],
      };
    }
    // Debits larger than what early credits leave, so some are refused in one process and booked later in
    // another, which is what the "at most once" rule has to survive.
    const debit = amount.times(2);
    return {
      reference: `proc:debit:${n}`,
      merchantId,
      postings: [
        { accountId: walletId, amount: debit.neg().toFixed() },
        { accountId: "acc_world_live_trc20", amount: debit.toFixed() },
      ],
    };
  });
}

async function runWorker(url: string, schema: string, journals: WorkerJournal[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", WORKER.pathname, url, schema, String(CONCURRENCY_PER_PROCESS)],
    cwd: REPO_ROOT.pathname,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(journals)));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  const text = new TextDecoder().decode(stdout);
  assertEquals(code, 0, `booking process failed: ${new TextDecoder().decode(stderr)}`);
  return JSON.parse(text.trim().split("\n").at(-1)!) as Record<string, WorkerOutcome>;
}

Deno.test({
  name: "ledger: four processes booking the same journals concurrently keep the books exact" +
    (databaseUrl ? "" : " (ignored: needs DATABASE_URL; PGlite is one process's embedded database)"),
  ignore: !databaseUrl,
  async fn() {
    const url = databaseUrl!;
    const schema = `test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE SCHEMA ${schema}`);
    const db = await openPostgres(url, 4, schema);
    try {
      await migrate(db);
      const wallets = [];
      for (let m = 0; m < MERCHANTS; m++) {
        const { merchantId } = await createMerchant({ db }, { name: `Process ${m}`, kybStatus: "APPROVED" });
        const [w] = await db.query<{ id: string }>(
          `SELECT id FROM accounts WHERE merchant_id = $1 AND is_sandbox = false AND rail = 'TRC20'`,
          [merchantId],
        );
        wallets.push({ merchantId, walletId: w.id });
      }
      const journals = journalList(wallets);

      // allSettled: every process has exited before a failure is reported and the schema dropped.
      const settled = await Promise.allSettled(
        Array.from({ length: PROCESSES }, () => runWorker(url, schema, journals)),
      );
      const failed = settled.find((s) => s.status === "rejected");
      if (failed) throw failed.reason;
      const reports = settled.map((s) => (s as PromiseFulfilledResult<Record<string, WorkerOutcome>>).value);

      // Every reference: booked by exactly as many processes as the database holds journals for it (0/1).
      const inDb = new Set(
        (await db.query<{ reference: string }>("SELECT reference FROM journals")).map((r) => r.reference),
      );
      for (const j of journals) {
        const said = reports.map((r) => r[j.reference]);
        assert(said.every((o) => o !== undefined), `${j.reference}: a process did not try it`);
        const booked = said.filter((o) => o === "booked").length;
        assertEquals(booked, inDb.has(j.reference) ? 1 : 0, `${j.reference}: ${said.join(", ")}`);
        if (j.reference.startsWith("proc:credit:")) assertEquals(booked, 1, `${j.reference} never booked`);
      }
      assertEquals(inDb.size, journals.filter((j) => inDb.has(j.reference)).length);

      // Each wallet holds what the booked journals put in it, and its cached balance is its entries' sum.
      const model = new Map<string, Decimal>(wallets.map((w) => [w.walletId, new Decimal(0)]));
      for (const j of journals.filter((x) => inDb.has(x.reference))) {
        for (const p of j.postings) {
          if (model.has(p.accountId)) model.set(p.accountId, model.get(p.accountId)!.plus(p.amount));
        }
      }
      const rows = await db.query<{ id: string; balance: string; entries: string }>(
        `SELECT a.id, a.balance::text, coalesce((SELECT sum(amount) FROM entries e WHERE e.account_id = a.id), 0)
                ::text AS entries
           FROM accounts a WHERE a.kind = 'WALLET' AND a.id = ANY($1::text[])`,
        [[...model.keys()]],
      );
      assertEquals(rows.length, MERCHANTS);
      for (const r of rows) {
        assert(
          new Decimal(r.balance).equals(model.get(r.id)!),
          `${r.id}: ${r.balance} vs ${model.get(r.id)}`,
        );
        assert(
          new Decimal(r.balance).equals(r.entries),
          `${r.id}: cached ${r.balance}, entries ${r.entries}`,
        );
        assert(new Decimal(r.balance).gte(0), `${r.id} is negative`);
      }
      // Some debits were refused and some booked, or the run did not test what it claims to.
      const debitsBooked = journals.filter((j) => j.reference.includes(":debit:") && inDb.has(j.reference));
      assert(debitsBooked.length > 0, "no debit was ever booked");

      const unbalanced = await db.query(
        "SELECT journal_id FROM entries GROUP BY journal_id, currency HAVING sum(amount) <> 0",
      );
      assertEquals(unbalanced.length, 0, `unbalanced journals: ${JSON.stringify(unbalanced)}`);
      const currencies = await db.query<{ currency: string; total: string }>(
        "SELECT currency, sum(balance)::text AS total FROM account_balances GROUP BY currency, is_sandbox",
      );
      for (const c of currencies) assert(new Decimal(c.total).isZero(), `${c.currency} sums to ${c.total}`);
    } finally {
      await db.close();
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  },
});
