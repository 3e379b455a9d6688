// Lock order between the ledger and the sandbox reset. A reset locks the sandbox platform accounts and the
// merchant's wallets FOR UPDATE in id order (platform accounts first); a journal must take its locks in
// the same order (platform accounts FOR KEY SHARE, then its wallets), or a credit holding its wallet while
// waiting on WORLD and a reset holding WORLD while waiting on that wallet deadlock, and PostgreSQL kills
// one of them. Several merchants' sandbox credits race with resets of two of them, round after round:
// every call must succeed, and afterwards each wallet holds exactly its surviving journals. Journals that
// move two wallets lock them in id order, so transfers both ways at once never deadlock either.
import type { Db } from "../../db/mod.ts";
import { AppError } from "../../domain/errors.ts";
import { postJournal } from "../../domain/ledger.ts";
import { Decimal } from "../../domain/money.ts";
import { resetSandbox } from "../../domain/sandbox/reset.ts";
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { withGateway } from "../helpers.ts";

const MERCHANTS = 4;
const ROUNDS = 6;
const CREDITS_PER_ROUND = 6;
const AMOUNT = new Decimal("2.000001");
const FEE = new Decimal("0.030001");

async function sandboxWallet(db: Db, merchantId: string): Promise<string> {
  const [w] = await db.query<{ id: string }>(
    `SELECT id FROM accounts WHERE merchant_id = $1 AND is_sandbox = true AND rail = 'TRC20'`,
    [merchantId],
  );
  return w.id;
}

Deno.test(
  "ledger: sandbox credits of several merchants racing with sandbox resets never deadlock",
  withGateway(async (gw) => {
    const db = gw.db;
    const merchants: Array<{ id: string; wallet: string }> = [];
    for (let m = 0; m < MERCHANTS; m++) {
      const { merchantId } = await gw.createMerchant(`Race ${m}`);
      merchants.push({ id: merchantId, wallet: await sandboxWallet(db, merchantId) });
    }
    const credit = (m: number, round: number, n: number) =>
      postJournal(db, {
        reference: `order:${m}:${round}:${n}`,
        kind: "test.credit",
        merchantId: merchants[m].id,
        isSandbox: true,
        postings: [
          { accountId: "acc_world_test_trc20", amount: AMOUNT.neg() },
          { accountId: merchants[m].wallet, amount: AMOUNT.minus(FEE) },
          { accountId: "acc_fees_test_trc20", amount: FEE },
        ],
      });
    const reset = (m: number) => resetSandbox({ db }, { merchantId: merchants[m].id, isSandbox: true });

    for (let round = 0; round < ROUNDS; round++) {
      const calls: Array<Promise<unknown>> = [];
      for (let n = 0; n < CREDITS_PER_ROUND; n++) {
        for (let m = 0; m < MERCHANTS; m++) calls.push(credit(m, round, n));
        if (n === 1 || n === 4) calls.push(reset(0), reset(1));
      }
      // allSettled, then look: a deadlock would surface as a rejected call (PostgreSQL error 40P01).
      const results = await Promise.allSettled(calls);
      const failures = results.filter((r) => r.status === "rejected").map((r) => String(r.reason));
      assertEquals(failures, [], `round ${round}`);
    }

    for (const m of merchants) {
      const [row] = await db.query<{ balance: string; journals: string }>(
        `SELECT a.balance::text,
                (SELECT count(*) FROM journals WHERE merchant_id = $1 AND reference LIKE 'order:%') AS journals
           FROM accounts a WHERE a.id = $2`,
        [m.id, m.wallet],
      );
      const expected = AMOUNT.minus(FEE).times(Number(row.journals));
      assert(new Decimal(row.balance).equals(expected), `${m.wallet}: ${row.balance}, expected ${expected}`);
    }
    // The merchants never reset kept every credit.
    const kept = await db.query<{ n: string }>(
      "SELECT count(*) AS n FROM journals WHERE merchant_id = ANY($1::text[])",
      [[merchants[2].id, merchants[3].id]],
    );
    assertEquals(Number(kept[0].n), 2 * ROUNDS * CREDITS_PER_ROUND);
    const unbalanced = await db.query(
      "SELECT journal_id FROM entries GROUP BY journal_id, currency HAVING sum(amount) <> 0",
    );
    assertEquals(unbalanced.length, 0);
  }),
);

Deno.test(
  "ledger: transfers between two wallets in both directions at once never deadlock and add up",
  withGateway(async (gw) => {
    const db = gw.db;
    const a = (await gw.createMerchant("Transfer A")).merchantId;
    const b = (await gw.createMerchant("Transfer B")).merchantId;
    const wallets = [await sandboxWallet(db, a), await sandboxWallet(db, b)];
    // Each wallet starts with 100, from the world.
    for (const [i, wallet] of wallets.entries()) {
      const funded = await postJournal(db, {
        reference: `transfer:fund:${i}`,
        kind: "test.credit",
        merchantId: i === 0 ? a : b,
        isSandbox: true,
        postings: [{ accountId: "acc_world_test_trc20", amount: "-100" }, {
          accountId: wallet,
          amount: "100",
        }],
      });
      assert(funded.booked);
    }
    // A to B and B to A at once, each journal locking both wallets: in id order, so none waits in a cycle.
    // Each also pays a fee, so the platform account is locked too.
    const transfer = (n: number) => {
      const [from, to] = n % 2 === 0 ? wallets : [wallets[1], wallets[0]];
      return postJournal(db, {
        reference: `transfer:${n}`,
        kind: "test.transfer",
        merchantId: null,
        isSandbox: true,
        postings: [
          { accountId: from, amount: "-1.5" },
          { accountId: to, amount: "1.25" },
          { accountId: "acc_fees_test_trc20", amount: "0.25" },
        ],
      });
    };
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, n) => transfer(n)));
    const failures = results.filter((r) => r.status === "rejected").map((r) => String(r.reason));
    assertEquals(failures, []);
    // 20 each way: each wallet sent 20 x 1.5 and received 20 x 1.25.
    const expected = new Decimal(100).minus(new Decimal("1.5").times(20)).plus(new Decimal("1.25").times(20));
    for (const wallet of wallets) {
      const [row] = await db.query<{ balance: string }>("SELECT balance::text FROM accounts WHERE id = $1", [
        wallet,
      ]);
      assert(new Decimal(row.balance).equals(expected), `${wallet}: ${row.balance}, expected ${expected}`);
    }
    // A journal whose second wallet would overdraw moves neither wallet.
    await assertRejects(
      () =>
        postJournal(db, {
          reference: "transfer:overdraw",
          kind: "test.transfer",
          merchantId: null,
          isSandbox: true,
          postings: [
            { accountId: wallets[0], amount: "10" },
            { accountId: wallets[1], amount: "-1000" },
            { accountId: "acc_world_test_trc20", amount: "990" },
          ],
        }),
      (err) => err instanceof AppError && err.code === "INSUFFICIENT_BALANCE",
    );
    for (const wallet of wallets) {
      const [row] = await db.query<{ balance: string }>("SELECT balance::text FROM accounts WHERE id = $1", [
        wallet,
      ]);
      assert(new Decimal(row.balance).equals(expected), `${wallet} moved: ${row.balance}`);
    }
  }),
);
