// POST /v1/sandbox/reset: wipes one merchant's sandbox money and history, and nothing else.
import type { Db } from "../../db/mod.ts";
import { newId } from "../../domain/ids.ts";
import { postJournal } from "../../domain/ledger.ts";
import { issueKey } from "../../domain/merchants/mod.ts";
import { Decimal } from "../../domain/money.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

type Wallet = { id: string; is_sandbox: boolean; rail: string };

async function walletsOf(db: Db, merchantId: string): Promise<Wallet[]> {
  return await db.query<Wallet>(
    "SELECT id, is_sandbox, rail FROM accounts WHERE merchant_id = $1 ORDER BY id",
    [merchantId],
  );
}

/** Every account's balance as canonical text, keyed by id (platform accounts' derived from entries). */
async function allBalances(db: Db): Promise<Record<string, string>> {
  const rows = await db.query<{ id: string; balance: string }>(
    "SELECT id, balance::text FROM account_balances",
  );
  return Object.fromEntries(rows.map((r) => [r.id, new Decimal(r.balance).toFixed()]));
}

async function count(db: Db, sql: string, params: unknown[] = []): Promise<number> {
  return Number((await db.query<{ n: string }>(sql, params))[0].n);
}

async function assertLedgerConsistent(db: Db): Promise<void> {
  assertEquals(
    await count(
      db,
      `SELECT count(*) AS n FROM (SELECT 1 FROM entries GROUP BY journal_id, currency HAVING sum(amount) <> 0) u`,
    ),
    0,
    "every journal sums to zero per currency",
  );
  assertEquals(
    await count(
      db,
      `SELECT count(*) AS n FROM accounts a
         LEFT JOIN (SELECT account_id, sum(amount) AS total FROM entries GROUP BY account_id) e
           ON e.account_id = a.id
        WHERE a.kind = 'WALLET' AND a.balance <> coalesce(e.total, 0)`,
    ),
    0,
    "every cached wallet balance equals the sum of its entries",
  );
  assertEquals(
    await count(db, "SELECT count(*) AS n FROM accounts WHERE kind = 'WALLET' AND balance < 0"),
    0,
  );
}

const RAIL_FACTOR: Record<string, number> = { TRC20: 1, MOMO: 2, CARD: 3 };

/** Books credits into each wallet of a mode, a fee out of each, and one event with one delivery. */
async function bookActivity(db: Db, merchantId: string, isSandbox: boolean, tag: string, scale: number) {
  const mode = isSandbox ? "test" : "live";
  const wallets = (await walletsOf(db, merchantId)).filter((w) => w.is_sandbox === isSandbox);
  for (const w of wallets) {
    const rail = w.rail.toLowerCase();
    const amount = new Decimal(scale).times(RAIL_FACTOR[w.rail]).plus("0.123456");
    for (let n = 0; n < 3; n++) {
      await postJournal(db, {
        reference: `${tag}:credit:${w.id}:${n}`,
        kind: "test.credit",
        merchantId,
        isSandbox,
        postings: [{ accountId: `acc_world_${mode}_${rail}`, amount: amount.neg() }, {
          accountId: w.id,
          amount,
        }],
      });
    }
    await postJournal(db, {
      reference: `${tag}:fee:${w.id}`,
      kind: "test.fee",
      merchantId,
      isSandbox,
      postings: [{ accountId: w.id, amount: "-1.5" }, {
        accountId: `acc_fees_${mode}_${rail}`,
        amount: "1.5",
      }],
    });
  }
  const endpointId = newId("whe");
  await db.query(
    `INSERT INTO webhook_endpoints (id, merchant_id, is_sandbox, url, events, secret_encrypted)
     VALUES ($1, $2, $3, 'https://example.com/hook', ARRAY['payin.confirmed'], 'sealed')`,
    [endpointId, merchantId, isSandbox],
  );
  const eventId = newId("evt");
  await db.query(
    `INSERT INTO events (id, merchant_id, is_sandbox, type, data) VALUES ($1, $2, $3, 'payin.confirmed', '{}')`,
    [eventId, merchantId, isSandbox],
  );
  await db.query(
    `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, merchant_id, is_sandbox, event_type, body)
     VALUES ($1, $2, $3, $4, $5, 'payin.confirmed', '{}')`,
    [newId("dlv"), eventId, endpointId, merchantId, isSandbox],
  );
  const payinId = newId("pay");
  await db.query(
    `INSERT INTO payins (id, merchant_id, is_sandbox, payment_method, status, currency, amount, amount_expected,
                         expires_at)
     VALUES ($1, $2, $3, 'USDT_TRC20', 'CONFIRMED', 'USDT_TRC20', 10, 11.5, now() + interval '30 minutes')`,
    [payinId, merchantId, isSandbox],
  );
  await db.query(
    `INSERT INTO chain_transfers (tx_id, log_index, block_number, block_hash, from_address, to_address, amount,
                                  merchant_id, kind, payin_id, is_sandbox, block_time)
     VALUES ($1, 0, 1, 'hash', 'Tfrom', 'Tto', 11.5, $2, 'PAYIN', $3, $4, now())`,
    [`tx-${payinId}`, merchantId, payinId, isSandbox],
  );
}

Deno.test("POST /v1/sandbox/reset", async (t) => {
  const gw = await startTestGateway();
  const db = gw.db;
  try {
    const a = await gw.createMerchant("Merchant A");
    const b = await gw.createMerchant("Merchant B");
    await bookActivity(db, a.merchantId, true, "a-test", 100);
    await bookActivity(db, a.merchantId, false, "a-live", 70);
    await bookActivity(db, b.merchantId, true, "b-test", 40);
    await bookActivity(db, b.merchantId, false, "b-live", 10);
    const aSandbox = (await walletsOf(db, a.merchantId)).filter((w) => w.is_sandbox).map((w) => w.id);

    await t.step(
      "security: no key, publishable keys and scope-less restricted keys are refused",
      async () => {
        const before = await allBalances(db);
        const none = await gw.request("POST", "/v1/sandbox/reset");
        assertEquals(none.status, 401);
        assertEquals(none.json.error.code, "UNAUTHORIZED");
        for (const key of [a.keys.testPublishable, a.keys.livePublishable]) {
          const res = await gw.request("POST", "/v1/sandbox/reset", { key });
          assertEquals(res.status, 403);
          assertEquals(res.json.error.code, "FORBIDDEN");
          assertEquals(res.json.error.cause, "INSUFFICIENT_SCOPE");
        }
        const restricted = await issueKey(gw.deps, {
          merchantId: a.merchantId,
          kind: "restricted",
          scopes: ["balances_read"],
          sandbox: true,
        });
        const res = await gw.request("POST", "/v1/sandbox/reset", { key: restricted.key });
        assertEquals(res.status, 403);
        assertEquals(res.json.error.cause, "INSUFFICIENT_SCOPE");
        assertEquals(await allBalances(db), before);
      },
    );

    await t.step("a live key is refused (403 FORBIDDEN, cause LIVE_KEY_SANDBOX_REQUEST)", async () => {
      const before = await allBalances(db);
      const journals = await count(db, "SELECT count(*) AS n FROM journals");
      const liveRestricted = await issueKey(gw.deps, {
        merchantId: a.merchantId,
        kind: "restricted",
        scopes: ["sandbox_write"],
        sandbox: false,
      });
      for (const key of [a.keys.liveSecret, liveRestricted.key]) {
        const res = await gw.request("POST", "/v1/sandbox/reset", { key });
        assertEquals(res.status, 403);
        assertEquals(res.json.error.code, "FORBIDDEN");
        assertEquals(res.json.error.cause, "LIVE_KEY_SANDBOX_REQUEST");
      }
      assertEquals(await allBalances(db), before);
      assertEquals(await count(db, "SELECT count(*) AS n FROM journals"), journals);
    });

    await t.step("A's sandbox key wipes A's sandbox only", async () => {
      const before = await allBalances(db);
      assert(aSandbox.every((id) => before[id] !== "0"), "A's sandbox wallets hold money before");
      const res = await gw.request("POST", "/v1/sandbox/reset", { key: a.keys.testSecret });
      assertEquals(res.status, 200);
      assertEquals(res.json.success, true);
      assertEquals(typeof res.json.data.message, "string");
      // Three wallets, each with three credits and one fee; one event with one delivery; one pay-in.
      assertEquals(res.json.data.deleted, {
        journals: 12,
        entries: 24,
        events: 1,
        webhookDeliveries: 1,
        chainTransfers: 1,
        payins: 1,
        idempotencyKeys: 0,
        reviewDecisions: 0,
        chainOutgoing: 0,
        fiatDisbursements: 0,
        payoutsAndWithdrawals: 0,
        bulkItems: 0,
        bulkBatches: 0,
        conversions: 0,
        subscriptionRenewals: 0,
        subscriptions: 0,
        mailOutbox: 0,
        paylinkOrderItems: 0,
        paylinkOrders: 0,
        paylinkPromoCodes: 0,
        paylinkProducts: 0,
        paylinks: 0,
        paylinkTemplates: 0,
        exportChunks: 0,
        exportJobs: 0,
      });

      const after = await allBalances(db);
      for (const id of aSandbox) assertEquals(after[id], "0", `A sandbox wallet ${id}`);
      const untouched = Object.keys(before).filter((id) => !aSandbox.includes(id) && !id.includes("_test_"));
      for (const id of untouched) assertEquals(after[id], before[id], `account ${id} must not move`);
      // The sandbox system accounts now hold exactly B's share: B's credits and fees, nothing of A's.
      const bTrc20Credit = new Decimal(40).times(RAIL_FACTOR.TRC20).plus("0.123456").times(3);
      assertEquals(after["acc_world_test_trc20"], bTrc20Credit.neg().toFixed());
      assertEquals(after["acc_fees_test_trc20"], "1.5");
      assertEquals(await count(db, "SELECT count(*) AS n FROM journals WHERE reference LIKE 'a-test:%'"), 0);
      assertEquals(await count(db, "SELECT count(*) AS n FROM journals WHERE reference LIKE 'a-live:%'"), 12);
      assertEquals(await count(db, "SELECT count(*) AS n FROM journals WHERE reference LIKE 'b-test:%'"), 12);
      const events = await db.query<{ merchant_id: string; is_sandbox: boolean }>(
        "SELECT merchant_id, is_sandbox FROM events ORDER BY merchant_id, is_sandbox",
      );
      assertEquals(events.filter((e) => e.merchant_id === a.merchantId).map((e) => e.is_sandbox), [false]);
      assertEquals(events.filter((e) => e.merchant_id === b.merchantId).length, 2);
      assertEquals(await count(db, "SELECT count(*) AS n FROM webhook_deliveries"), 3);
      const payins = await db.query<{ merchant_id: string; is_sandbox: boolean }>(
        "SELECT merchant_id, is_sandbox FROM payins",
      );
      assertEquals(payins.filter((p) => p.merchant_id === a.merchantId).map((p) => p.is_sandbox), [false]);
      assertEquals(payins.filter((p) => p.merchant_id === b.merchantId).length, 2);
      assertEquals(await count(db, "SELECT count(*) AS n FROM chain_transfers"), 3);
      // Endpoints are configuration, not transactions: they survive.
      assertEquals(
        await count(db, "SELECT count(*) AS n FROM webhook_endpoints WHERE merchant_id = $1", [a.merchantId]),
        2,
      );
      await assertLedgerConsistent(db);
    });

    await t.step("the API shows zero sandbox balances and intact live balances", async () => {
      const test = await gw.request("GET", "/v1/wallets/balance", { key: a.keys.testSecret });
      assertEquals(test.json.data.totals, { USDT_TRC20: "0.000000", XOF: "0" });
      const live = await gw.request("GET", "/v1/wallets/balance", { key: a.keys.liveSecret });
      assert(live.json.data.balances.every((w: { balance: string }) => new Decimal(w.balance).gt(0)));
    });

    await t.step("a second reset is harmless", async () => {
      const before = await allBalances(db);
      const res = await gw.request("POST", "/v1/sandbox/reset", { key: a.keys.testSecret });
      assertEquals(res.status, 200);
      assertEquals(res.json.data.deleted, {
        journals: 0,
        entries: 0,
        events: 0,
        webhookDeliveries: 0,
        chainTransfers: 0,
        payins: 0,
        idempotencyKeys: 0,
        reviewDecisions: 0,
        chainOutgoing: 0,
        fiatDisbursements: 0,
        payoutsAndWithdrawals: 0,
        bulkItems: 0,
        bulkBatches: 0,
        conversions: 0,
        subscriptionRenewals: 0,
        subscriptions: 0,
        mailOutbox: 0,
        paylinkOrderItems: 0,
        paylinkOrders: 0,
        paylinkPromoCodes: 0,
        paylinkProducts: 0,
        paylinks: 0,
        paylinkTemplates: 0,
        exportChunks: 0,
        exportJobs: 0,
      });
      assertEquals(await allBalances(db), before);
      await assertLedgerConsistent(db);
    });

    await t.step("a restricted sandbox key with sandbox_write may reset", async () => {
      await bookActivity(db, a.merchantId, true, "a-test-2", 5);
      const key = await issueKey(gw.deps, {
        merchantId: a.merchantId,
        kind: "restricted",
        scopes: ["sandbox_write"],
        sandbox: true,
      });
      const res = await gw.request("POST", "/v1/sandbox/reset", { key: key.key });
      assertEquals(res.status, 200);
      assertEquals(res.json.data.deleted.journals, 12);
      await assertLedgerConsistent(db);
    });

    await t.step("a reset racing with sandbox bookings leaves the ledger consistent", async () => {
      const world = "acc_world_test_trc20";
      const wallet = (await walletsOf(db, a.merchantId)).find((w) => w.is_sandbox && w.rail === "TRC20")!;
      const credit = (n: number) =>
        postJournal(db, {
          reference: `race:${n}`,
          kind: "test.credit",
          merchantId: a.merchantId,
          isSandbox: true,
          postings: [{ accountId: world, amount: "-2.000001" }, { accountId: wallet.id, amount: "2.000001" }],
        });
      const resets = () => gw.request("POST", "/v1/sandbox/reset", { key: a.keys.testSecret });
      const results = await Promise.all([
        ...Array.from({ length: 10 }, (_, n) => credit(n)),
        resets(),
        ...Array.from({ length: 10 }, (_, n) => credit(10 + n)),
        resets(),
      ]);
      for (const r of results) if ("status" in r) assertEquals(r.status, 200);
      await assertLedgerConsistent(db);
      // Whatever survived the resets is exactly what the wallet holds.
      const survivors = await count(db, "SELECT count(*) AS n FROM journals WHERE reference LIKE 'race:%'");
      assertEquals((await allBalances(db))[wallet.id], new Decimal("2.000001").times(survivors).toFixed());
    });
  } finally {
    await gw.close();
  }
});
