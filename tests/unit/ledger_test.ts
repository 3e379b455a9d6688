// Example-based tests of postJournal: the one helper through which money moves.
import { accountBalance, platformBalances } from "../../db/ledger.ts";
import type { Db } from "../../db/mod.ts";
import { AppError } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { postJournal } from "../../domain/ledger.ts";
import { Decimal } from "../../domain/money.ts";
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

const WORLD_TEST = "acc_world_test_trc20";
const FEES_TEST = "acc_fees_test_trc20";
const WORLD_LIVE = "acc_world_live_trc20";

async function walletId(db: Db, merchantId: string, isSandbox: boolean): Promise<string> {
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM accounts WHERE merchant_id = $1 AND is_sandbox = $2 AND kind = 'WALLET' AND rail = 'TRC20'`,
    [merchantId, isSandbox],
  );
  return rows[0].id;
}

async function balances(db: Db, ...ids: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const id of ids) {
    const balance = await accountBalance(db, id);
    assert(balance !== undefined, `account ${id} missing`);
    out.push(new Decimal(balance).toFixed());
  }
  return out;
}

async function countWhere(db: Db, sql: string, params: unknown[]): Promise<number> {
  return Number((await db.query<{ n: string }>(sql, params))[0].n);
}

/** Everything a failed journal must leave untouched, captured before and compared after. */
async function snapshot(db: Db, accounts: string[]) {
  return {
    balances: await balances(db, ...accounts),
    journals: await countWhere(db, "SELECT count(*) AS n FROM journals", []),
    entries: await countWhere(db, "SELECT count(*) AS n FROM entries", []),
    events: await countWhere(db, "SELECT count(*) AS n FROM events", []),
  };
}

function isInsufficient(err: unknown): boolean {
  return err instanceof AppError && err.code === "INSUFFICIENT_BALANCE";
}

Deno.test("postJournal", async (t) => {
  const gw = await startTestGateway();
  const db = gw.db;
  try {
    const { merchantId } = await gw.createMerchant("Ledger Shop");
    const wallet = await walletId(db, merchantId, true);
    const liveWallet = await walletId(db, merchantId, false);
    const credit = (reference: string, amount: string) =>
      postJournal(db, {
        reference,
        kind: "test.credit",
        merchantId,
        isSandbox: true,
        postings: [{ accountId: WORLD_TEST, amount: `-${amount}` }, { accountId: wallet, amount }],
      });

    await t.step("a balanced journal moves both balances and writes entries summing to zero", async () => {
      const result = await credit("ex:credit:1", "100.123456");
      assert(result.booked);
      assertEquals(await balances(db, WORLD_TEST, wallet), ["-100.123456", "100.123456"]);
      const entries = await db.query<{ account_id: string; amount: string; currency: string }>(
        "SELECT account_id, amount::text, currency FROM entries WHERE journal_id = $1 ORDER BY account_id",
        [result.journalId],
      );
      assertEquals(entries.length, 2);
      assertEquals(entries.map((e) => e.currency), ["USDT_TRC20", "USDT_TRC20"]);
      const sum = entries.reduce((s, e) => s.plus(e.amount), new Decimal(0));
      assert(sum.isZero(), `entries sum to ${sum}`);
      const journal = await db.query<{ reference: string; merchant_id: string; is_sandbox: boolean }>(
        "SELECT reference, merchant_id, is_sandbox FROM journals WHERE id = $1",
        [result.journalId],
      );
      assertEquals(journal[0], { reference: "ex:credit:1", merchant_id: merchantId, is_sandbox: true });
    });

    await t.step("the same reference twice books once", async () => {
      const before = await snapshot(db, [WORLD_TEST, wallet]);
      const again = await credit("ex:credit:1", "100.123456");
      assertEquals(again, { booked: false });
      // A replay with different postings is still a replay: the reference alone decides.
      const different = await credit("ex:credit:1", "5");
      assertEquals(different, { booked: false });
      assertEquals(await snapshot(db, [WORLD_TEST, wallet]), before);
    });

    await t.step("an unbalanced journal throws and changes nothing", async () => {
      const before = await snapshot(db, [WORLD_TEST, wallet]);
      await assertRejects(
        () =>
          postJournal(db, {
            reference: "ex:unbalanced",
            kind: "test.credit",
            merchantId,
            isSandbox: true,
            postings: [{ accountId: WORLD_TEST, amount: "-10" }, { accountId: wallet, amount: "10.000001" }],
          }),
        (err) => err instanceof Error && /unbalanced/.test(err.message),
      );
      assertEquals(await snapshot(db, [WORLD_TEST, wallet]), before);
      // The refused reference was not consumed: a correct journal may still use it.
      assert((await credit("ex:unbalanced", "1")).booked);
    });

    await t.step("malformed postings are refused before touching the database", async () => {
      const before = await snapshot(db, [WORLD_TEST, wallet]);
      const base = { kind: "test.bad", merchantId, isSandbox: true };
      await assertRejects(() =>
        postJournal(db, { ...base, reference: "ex:one", postings: [{ accountId: wallet, amount: "1" }] })
      );
      await assertRejects(() =>
        postJournal(db, {
          ...base,
          reference: "ex:zero",
          postings: [{ accountId: WORLD_TEST, amount: "0" }, { accountId: wallet, amount: "0" }],
        })
      );
      await assertRejects(() =>
        postJournal(db, {
          ...base,
          reference: "ex:unknown",
          postings: [{ accountId: WORLD_TEST, amount: "-1" }, { accountId: "wal_nope", amount: "1" }],
        })
      );
      assertEquals(await snapshot(db, [WORLD_TEST, wallet]), before);
    });

    await t.step(
      "a debit beyond the wallet's balance is INSUFFICIENT_BALANCE and changes nothing",
      async () => {
        const before = await snapshot(db, [WORLD_TEST, FEES_TEST, wallet]);
        const [held] = await balances(db, wallet);
        const over = new Decimal(held).plus("0.000001").toFixed();
        await assertRejects(
          () =>
            postJournal(db, {
              reference: "ex:overdraw",
              kind: "test.debit",
              merchantId,
              isSandbox: true,
              postings: [{ accountId: wallet, amount: `-${over}` }, { accountId: FEES_TEST, amount: over }],
            }),
          isInsufficient,
        );
        assertEquals(await snapshot(db, [WORLD_TEST, FEES_TEST, wallet]), before);
        // Exactly the balance is allowed: the wallet may reach zero, never below.
        const all = await postJournal(db, {
          reference: "ex:drain",
          kind: "test.debit",
          merchantId,
          isSandbox: true,
          postings: [{ accountId: wallet, amount: `-${held}` }, { accountId: WORLD_TEST, amount: held }],
        });
        assert(all.booked);
        assertEquals(await balances(db, wallet), ["0"]);
        assert((await credit("ex:refill", "50")).booked);
      },
    );

    await t.step("an overdraw inside `then` rolls back the journal and the callback's writes", async () => {
      const before = await snapshot(db, [WORLD_TEST, FEES_TEST, wallet]);
      await assertRejects(
        () =>
          postJournal(db, {
            reference: "ex:then-overdraw",
            kind: "test.credit",
            merchantId,
            isSandbox: true,
            postings: [{ accountId: WORLD_TEST, amount: "-10" }, { accountId: wallet, amount: "10" }],
          }, async (tx, journalId) => {
            await insertEvent(tx, merchantId, journalId);
            // A fee larger than everything the wallet holds, booked in the same transaction.
            await postJournal(tx, {
              reference: "ex:then-overdraw:fee",
              kind: "test.fee",
              merchantId,
              isSandbox: true,
              postings: [{ accountId: wallet, amount: "-1000" }, { accountId: FEES_TEST, amount: "1000" }],
            });
          }),
        isInsufficient,
      );
      assertEquals(await snapshot(db, [WORLD_TEST, FEES_TEST, wallet]), before);
      await assertRejects(
        () =>
          postJournal(db, {
            reference: "ex:then-throws",
            kind: "test.credit",
            merchantId,
            isSandbox: true,
            postings: [{ accountId: WORLD_TEST, amount: "-10" }, { accountId: wallet, amount: "10" }],
          }, async (tx, journalId) => {
            await insertEvent(tx, merchantId, journalId);
            throw new Error("state transition refused");
          }),
        (err) => err instanceof Error && err.message === "state transition refused",
      );
      assertEquals(await snapshot(db, [WORLD_TEST, FEES_TEST, wallet]), before);
    });

    await t.step(
      "another CHECK violation inside `then` is not mistaken for INSUFFICIENT_BALANCE",
      async () => {
        const before = await snapshot(db, [WORLD_TEST, wallet]);
        await assertRejects(
          () =>
            postJournal(db, {
              reference: "ex:then-other-check",
              kind: "test.credit",
              merchantId,
              isSandbox: true,
              postings: [{ accountId: WORLD_TEST, amount: "-3" }, { accountId: wallet, amount: "3" }],
            }, async (tx) => {
              // A bug in a caller (a status its table forbids), not a shortage of money.
              await tx.query("UPDATE merchants SET status = 'NOT_A_STATUS' WHERE id = $1", [merchantId]);
            }),
          (err) => !(err instanceof AppError) && /check constraint/i.test(String(err)),
        );
        assertEquals(await snapshot(db, [WORLD_TEST, wallet]), before);
      },
    );

    await t.step("postings in the other mode are refused", async () => {
      const before = await snapshot(db, [WORLD_LIVE, WORLD_TEST, wallet, liveWallet]);
      await assertRejects(
        () =>
          postJournal(db, {
            reference: "ex:cross-mode",
            kind: "test.credit",
            merchantId,
            isSandbox: true,
            postings: [{ accountId: WORLD_LIVE, amount: "-5" }, { accountId: wallet, amount: "5" }],
          }),
        (err) => err instanceof Error && /other mode/.test(err.message),
      );
      await assertRejects(
        () =>
          postJournal(db, {
            reference: "ex:cross-mode-2",
            kind: "test.credit",
            merchantId,
            isSandbox: false,
            postings: [{ accountId: WORLD_LIVE, amount: "-5" }, { accountId: wallet, amount: "5" }],
          }),
        (err) => err instanceof Error && /other mode/.test(err.message),
      );
      assertEquals(await snapshot(db, [WORLD_LIVE, WORLD_TEST, wallet, liveWallet]), before);
    });

    await t.step("platform balances are derived from entries, never stored", async () => {
      const entriesSum = async (id: string) =>
        new Decimal(
          (await db.query<{ s: string }>(
            "SELECT coalesce(sum(amount), 0)::text AS s FROM entries WHERE account_id = $1",
            [id],
          ))[0].s,
        ).toFixed();
      const [world] = await balances(db, WORLD_TEST);
      assertEquals(world, await entriesSum(WORLD_TEST));
      assert(new Decimal(world).isNegative(), "the world gave what the wallet received");
      const stored = await db.query<{ balance: string | null }>(
        "SELECT balance FROM accounts WHERE id = $1",
        [
          WORLD_TEST,
        ],
      );
      assertEquals(stored[0].balance, null);
      const platform = await platformBalances(db, true);
      const listed = platform.find((p) => p.id === WORLD_TEST);
      assert(listed, "WORLD is listed among the platform accounts");
      assertEquals(new Decimal(listed.balance).toFixed(), world);
      assert(platform.every((p) => p.kind !== "WALLET" && p.is_sandbox));
      // An account added later (say by a migration) gets the right stored value whatever it says: none
      // for a platform account, zero for a wallet.
      await db.query(
        `INSERT INTO accounts (id, merchant_id, is_sandbox, kind, currency, rail, balance)
         VALUES ('acc_test_extra_fees', $1, true, 'FEES', 'XOF', 'CARD', 5)`,
        [merchantId],
      );
      assertEquals(await accountBalance(db, "acc_test_extra_fees"), "0");
      await db.query(
        `INSERT INTO accounts (id, merchant_id, is_sandbox, kind, currency, rail)
         VALUES ('wal_test_extra', NULL, true, 'WALLET', 'XOF', 'CARD')`,
      );
      assertEquals(await accountBalance(db, "wal_test_extra"), "0");
      assertEquals(await accountBalance(db, "acc_nope"), undefined);
    });

    await t.step("the `then` callback's writes commit with the journal", async () => {
      let seen: string | undefined;
      const result = await postJournal(db, {
        reference: "ex:then-commits",
        kind: "test.credit",
        merchantId,
        isSandbox: true,
        postings: [{ accountId: WORLD_TEST, amount: "-7.5" }, { accountId: wallet, amount: "7.5" }],
      }, async (tx, journalId) => {
        seen = journalId;
        await insertEvent(tx, merchantId, journalId);
      });
      assert(result.booked);
      assertEquals(seen, result.journalId);
      const events = await db.query<{ journal: string }>(
        "SELECT data->>'journalId' AS journal FROM events WHERE merchant_id = $1",
        [merchantId],
      );
      assertEquals(events.map((e) => e.journal), [result.journalId]);
      // A replay does not run the callback again.
      let ranAgain = false;
      const replay = await postJournal(db, {
        reference: "ex:then-commits",
        kind: "test.credit",
        merchantId,
        isSandbox: true,
        postings: [{ accountId: WORLD_TEST, amount: "-7.5" }, { accountId: wallet, amount: "7.5" }],
      }, () => {
        ranAgain = true;
        return Promise.resolve();
      });
      assertEquals(replay, { booked: false });
      assertEquals(ranAgain, false);
    });
  } finally {
    await gw.close();
  }
});

async function insertEvent(tx: Db, merchantId: string, journalId: string): Promise<void> {
  await tx.query(
    `INSERT INTO events (id, merchant_id, is_sandbox, type, data) VALUES ($1, $2, true, 'test.booked', $3::text::jsonb)`,
    [newId("evt"), merchantId, JSON.stringify({ journalId })],
  );
}
