// No hot row: while one merchant's credit sits in an open transaction (holding every lock it took),
// another merchant's credit on the same rail, through the same WORLD and FEES accounts, commits, and the
// platform accounts' balances can be read. Only the same merchant's own wallet makes a second credit wait.
// PostgreSQL only: PGlite is a single connection, where nothing can run beside an open transaction.
import { readDatabaseConfig } from "../../config.ts";
import { accountBalance } from "../../db/ledger.ts";
import type { Db } from "../../db/mod.ts";
import { postJournal } from "../../domain/ledger.ts";
import { Decimal } from "../../domain/money.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

const WORLD = "acc_world_live_trc20";
const FEES = "acc_fees_live_trc20";
/** Only a guard against hanging forever on a lock: the assertions are about order, never about time. */
const GUARD_MS = 10_000;

const databaseUrl = readDatabaseConfig().databaseUrl;

async function liveWallet(db: Db, merchantId: string): Promise<string> {
  const [w] = await db.query<{ id: string }>(
    `SELECT id FROM accounts WHERE merchant_id = $1 AND is_sandbox = false AND rail = 'TRC20'`,
    [merchantId],
  );
  return w.id;
}

function credit(db: Db, merchantId: string, wallet: string, reference: string, amount: string) {
  const fee = new Decimal(amount).times("0.015");
  return postJournal(db, {
    reference,
    kind: "test.credit",
    merchantId,
    isSandbox: false,
    postings: [
      { accountId: WORLD, amount: new Decimal(amount).neg() },
      { accountId: wallet, amount: new Decimal(amount).minus(fee) },
      { accountId: FEES, amount: fee },
    ],
  });
}

/** Resolves with the promise's value, or rejects when it is still waiting after GUARD_MS. */
function guarded<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} still waiting after ${GUARD_MS} ms`)), GUARD_MS);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

/** Whether any session is blocked by the one whose backend pid is given. */
async function blocksSomeone(db: Db, pid: number): Promise<boolean> {
  const rows = await db.query<{ n: string }>(
    "SELECT count(*) AS n FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))",
    [pid],
  );
  return Number(rows[0].n) > 0;
}

Deno.test({
  name: "ledger: another merchant's credit commits while a first merchant's credit is held open" +
    (databaseUrl ? "" : " (ignored: needs DATABASE_URL; PGlite is one connection)"),
  ignore: !databaseUrl,
  async fn() {
    const gw = await startTestGateway();
    const db = gw.db;
    try {
      const a = (await gw.createMerchant("Held Shop")).merchantId;
      const b = (await gw.createMerchant("Busy Shop")).merchantId;
      const walletA = await liveWallet(db, a);
      const walletB = await liveWallet(db, b);
      const worldBefore = await accountBalance(db, WORLD);

      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let held!: () => void;
      const isHeld = new Promise<void>((resolve) => (held = resolve));
      // Merchant A's credit, booked inside a transaction that stays open until released.
      let holder = 0;
      const open = db.tx(async (tx) => {
        holder = (await tx.query<{ pid: number }>("SELECT pg_backend_pid() AS pid"))[0].pid;
        const r = await credit(tx, a, walletA, "hold:a:1", "100");
        assert(r.booked);
        held();
        await released;
      });
      await isHeld;

      try {
        // Merchant B's credit, through the same WORLD and FEES accounts, commits before A's releases.
        const other = await guarded("merchant B's credit", credit(db, b, walletB, "hold:b:1", "40"));
        assert(other.booked);
        assertEquals(await accountBalance(db, walletB), "39.4");
        // The platform balance reads the committed books without waiting: B's credit, not A's open one.
        const world = await guarded("reading WORLD", accountBalance(db, WORLD));
        assertEquals(new Decimal(world!).minus(worldBefore!).toFixed(), "-40");

        // A second credit to A's own wallet does wait: its wallet row is the one lock that serializes.
        const sameWallet = credit(db, a, walletA, "hold:a:2", "1");
        let waited = false;
        for (let i = 0; i < 200 && !waited; i++) {
          waited = await blocksSomeone(db, holder);
          if (!waited) await new Promise((r) => setTimeout(r, 25));
        }
        assert(waited, "a credit to the held wallet should wait on its row lock");
        release();
        await open;
        assert((await guarded("merchant A's second credit", sameWallet)).booked);
        assertEquals(await accountBalance(db, walletA), "99.485");
      } finally {
        release();
        await open.catch(() => {});
      }
    } finally {
      await gw.close();
    }
  },
});
