// Kills a process between a money movement and the completion of its idempotency record, then retries
// the same request with the same key, and checks what the merchant's wallet shows. The process is a real
// subprocess (tests/support/money_probe_child.ts) on the same database: the PostgreSQL of DATABASE_URL
// (a throwaway schema), or else an embedded PGlite data directory on disk.
import postgres from "postgres";
import { readDatabaseConfig } from "../../config.ts";
import { migrate } from "../../db/migrate.ts";
import type { Db } from "../../db/mod.ts";
import { openPglite } from "../../db/pglite.ts";
import { openPostgres } from "../../db/postgres.ts";
import { manualClock } from "../../domain/clock.ts";
import { RUNNING_LOCK_MS } from "../../domain/idempotency.ts";
import { postJournal } from "../../domain/ledger.ts";
import { createMerchant } from "../../domain/merchants/mod.ts";
import { Decimal } from "../../domain/money.ts";
import { assertEquals } from "../assert.ts";
import type { ChildArgs, ChildDatabase } from "../support/money_probe_child.ts";
import {
  type Design,
  moneyProbeApp,
  type PausePoint,
  transferRequest,
  WORLD_LIVE_TRC20,
} from "../support/money_probe.ts";

const FUNDED = "100";
const AMOUNT = "10";
const CHILD = new URL("../support/money_probe_child.ts", import.meta.url);
const ROOT = new URL("../../", import.meta.url);

type Store = { open(): Promise<Db>; child: ChildDatabase; remove(): Promise<void> };

async function throwawayStore(): Promise<Store> {
  const url = readDatabaseConfig().databaseUrl;
  if (!url) {
    const dir = await Deno.makeTempDir({ prefix: "idem_kill_" });
    return {
      open: () => openPglite(`${dir}/pg`),
      child: { pgliteDir: `${dir}/pg` },
      remove: () => Deno.remove(dir, { recursive: true }),
    };
  }
  const schema = `test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE SCHEMA ${schema}`);
  return {
    open: () => openPostgres(url, 4, schema),
    child: { url, schema },
    async remove() {
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

async function balanceOf(db: Db, accountId: string): Promise<Decimal> {
  const rows = await db.query<{ balance: string }>("SELECT balance::text FROM accounts WHERE id = $1", [
    accountId,
  ]);
  return new Decimal(rows[0].balance);
}

/** One merchant whose live USDT wallet holds FUNDED. */
type Merchant = { merchantId: string; walletId: string };

async function fundedMerchant(store: Store): Promise<Merchant> {
  const db = await store.open();
  try {
    await migrate(db);
    const { merchantId } = await createMerchant({ db }, { name: "Crash Shop", kybStatus: "APPROVED" });
    const [{ id: walletId }] = await db.query<{ id: string }>(
      `SELECT id FROM accounts WHERE merchant_id = $1 AND is_sandbox = false AND kind = 'WALLET' AND rail = 'TRC20'`,
      [merchantId],
    );
    await postJournal(db, {
      reference: `fund:${merchantId}`,
      kind: "probe_funding",
      merchantId,
      isSandbox: false,
      postings: [{ accountId: WORLD_LIVE_TRC20, amount: `-${FUNDED}` }, {
        accountId: walletId,
        amount: FUNDED,
      }],
    });
    return { merchantId, walletId };
  } finally {
    await db.close();
  }
}

/** Runs the child until it says PAUSED, then kills it with SIGKILL. */
async function killAtPause(args: ChildArgs): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", CHILD.pathname, JSON.stringify(args)],
    cwd: ROOT.pathname,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  let seen = "";
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  try {
    while (!seen.includes("PAUSED\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`child ended before pausing: ${seen}\n${await stderr}`);
      seen += value;
    }
    child.kill("SIGKILL");
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => {});
    await child.status;
    await stderr;
  }
  assertEquals((await child.status).signal, "SIGKILL", "the child must die by the kill, not finish");
}

/**
 * Crashes one request at `pauseAt`, then sends the same request with the same key once its 60 s lock is
 * over (a retrying client). Returns how much the wallet lost by the crash and by the retry, the retry, and
 * the transfer journals booked under this key's attempts.
 */
async function crashThenRetry(store: Store, merchant: Merchant, design: Design, pauseAt: PausePoint) {
  const before = await withDb(store, (db) => balanceOf(db, merchant.walletId));
  const key = crypto.randomUUID();
  await killAtPause({ database: store.child, ...merchant, design, pauseAt, key, amount: AMOUNT });
  return await withDb(store, async (db) => {
    const afterCrash = await balanceOf(db, merchant.walletId);
    const known = await transferJournals(db);
    const clock = manualClock(new Date(Date.now() + RUNNING_LOCK_MS + 1000));
    const app = moneyProbeApp({
      deps: { db, clock },
      ...merchant,
      design,
      pauseAt: "none",
      pause: () => Promise.resolve(),
    });
    // The dead process's transaction may take a moment to be rolled back by the server; until then the
    // key is still held and answers CONFLICT, on which a client retries.
    let retry = await app.request(transferRequest(key, AMOUNT));
    let body = await retry.json();
    for (let i = 0; i < 50 && retry.status === 409 && body.error.code === "CONFLICT"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      retry = await app.request(transferRequest(key, AMOUNT));
      body = await retry.json();
    }
    const afterRetry = await balanceOf(db, merchant.walletId);
    return {
      lostInCrash: before.minus(afterCrash).toFixed(),
      lostInRetry: afterCrash.minus(afterRetry).toFixed(),
      retry,
      body,
      crashJournals: known.length,
      journals: (await transferJournals(db)).length,
    };
  });
}

async function withDb<T>(store: Store, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = await store.open();
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

async function transferJournals(db: Db): Promise<string[]> {
  return (await db.query<{ id: string }>("SELECT id FROM journals WHERE kind = 'probe_transfer'")).map((j) =>
    j.id
  );
}

Deno.test("a process killed between a money movement and its idempotency record", async (t) => {
  // One data directory for all steps: creating a PGlite one is the slow part.
  const store = await throwawayStore();
  try {
    const merchant = await fundedMerchant(store);

    await t.step("money helper, killed between the two: the retry moves the money once", async () => {
      const r = await crashThenRetry(store, merchant, "in-transaction", "after-money");
      // The movement died with its transaction: nothing left the wallet.
      assertEquals(r.lostInCrash, "0");
      assertEquals(r.retry.status, 201);
      assertEquals(r.retry.headers.get("Idempotent-Replayed"), null);
      assertEquals(r.lostInRetry, AMOUNT);
      assertEquals(r.journals, r.crashJournals + 1);
    });

    await t.step("money helper, killed after its commit: the retry replays the stored answer", async () => {
      const r = await crashThenRetry(store, merchant, "in-transaction", "after-commit");
      assertEquals(r.lostInCrash, AMOUNT);
      assertEquals(r.retry.status, 201);
      assertEquals(r.retry.headers.get("Idempotent-Replayed"), "true");
      assertEquals(typeof r.body.data.journalId, "string");
      assertEquals(r.lostInRetry, "0");
      assertEquals(r.journals, r.crashJournals);
    });

    await t.step("money middleware, killed between the two: the retry moves the money once", async () => {
      const r = await crashThenRetry(store, merchant, "in-transaction-middleware", "after-money");
      assertEquals(r.lostInCrash, "0");
      assertEquals([r.retry.status, r.retry.headers.get("Idempotent-Replayed")], [201, null]);
      assertEquals(r.lostInRetry, AMOUNT);
      assertEquals(r.journals, r.crashJournals + 1);
    });

    // Why money routes must not use the after-commit middleware: the same kill makes its retry pay again.
    // It also shows the harness stops the process at the dangerous point, so the steps above mean something.
    await t.step(
      "after-commit middleware, killed between the two: the retry pays a second time",
      async () => {
        const r = await crashThenRetry(store, merchant, "after-commit", "after-money");
        assertEquals(r.lostInCrash, AMOUNT);
        assertEquals(r.retry.status, 201);
        assertEquals(r.retry.headers.get("Idempotent-Replayed"), null);
        assertEquals(r.lostInRetry, AMOUNT);
        assertEquals(r.journals, r.crashJournals + 1);
      },
    );
  } finally {
    await store.remove();
  }
});
