// SQL for accounts (wallets and platform accounts), journals and entries. Only domain/ledger.ts writes
// journals, so every movement goes through its checks.
import type { Db } from "./mod.ts";

export type AccountRow = {
  id: string;
  merchant_id: string | null;
  is_sandbox: boolean;
  kind: "WALLET" | "WORLD" | "FEES";
  currency: string;
  rail: string;
  /** A wallet's cached balance. Platform accounts have none: see accountBalance. */
  balance: string;
  updated_at: Date;
};

/** A platform account (WORLD, FEES...): its balance is derived from its entries, never stored. */
export type PlatformAccountRow = Omit<AccountRow, "balance">;

export async function insertWallet(
  db: Db,
  w: { id: string; merchantId: string; isSandbox: boolean; currency: string; rail: string },
): Promise<void> {
  await db.query(
    `INSERT INTO accounts (id, merchant_id, is_sandbox, kind, currency, rail, balance)
     VALUES ($1, $2, $3, 'WALLET', $4, $5, 0)`,
    [w.id, w.merchantId, w.isSandbox, w.currency, w.rail],
  );
}

export async function listWallets(db: Db, merchantId: string, isSandbox: boolean): Promise<AccountRow[]> {
  return await db.query<AccountRow>(
    `SELECT * FROM accounts WHERE merchant_id = $1 AND is_sandbox = $2 AND kind = 'WALLET'
      ORDER BY currency DESC, rail DESC`,
    [merchantId, isSandbox],
  );
}

export async function findWallet(
  db: Db,
  merchantId: string,
  isSandbox: boolean,
  currency: string,
  rail: string,
): Promise<AccountRow | undefined> {
  return (await db.query<AccountRow>(
    `SELECT * FROM accounts WHERE merchant_id = $1 AND is_sandbox = $2 AND kind = 'WALLET' AND currency = $3 AND rail = $4`,
    [merchantId, isSandbox, currency, rail],
  ))[0];
}

export async function findSystemAccount(
  db: Db,
  kind: "WORLD" | "FEES",
  isSandbox: boolean,
  rail: string,
): Promise<PlatformAccountRow> {
  const row = (await db.query<PlatformAccountRow>(
    `SELECT id, merchant_id, is_sandbox, kind, currency, rail, updated_at FROM accounts WHERE merchant_id IS NULL AND kind = $1 AND is_sandbox = $2 AND rail = $3`,
    [kind, isSandbox, rail],
  ))[0];
  if (!row) throw new Error(`system account ${kind}/${rail} missing: migrations not applied?`);
  return row;
}

export type BookJournalOutcome = {
  /** The new journal's id, or null when nothing was written. */
  journal_id: string | null;
  /** The reference was already booked (committed) when the statement started. */
  replayed: boolean;
  /** Posting accounts that do not exist. */
  unknown: string[] | null;
  /** Posting accounts in the other mode than the journal's. */
  other_mode: string[] | null;
  /** Currencies whose postings do not sum to zero, as "XOF by 5". */
  unbalanced: string[] | null;
};

/**
 * Books a journal in ONE statement (one round trip, atomic without an explicit transaction): checks every
 * account exists, is in the journal's mode, and that the postings sum to zero per currency; inserts the
 * journal unless its reference exists (a replay writes nothing); locks the platform accounts FOR KEY SHARE
 * (a shared lock: journals never wait on each other there; it only keeps the sandbox reset, which locks
 * them exclusively, in the same platform-then-wallets order) and then the wallets, each group in id
 * order, so concurrent journals cannot deadlock; moves the wallets' cached balances (the CHECK refuses a
 * negative one and aborts the statement) and writes one entry per posting. Platform accounts have no
 * stored balance, so no journal ever updates a row another merchant's journal needs.
 * When a check fails nothing is written and the outcome says why; the caller turns that into an error.
 */
export async function bookJournal(
  db: Db,
  j: {
    id: string;
    reference: string;
    kind: string;
    merchantId: string | null;
    isSandbox: boolean;
    metadata: object;
    postings: ReadonlyArray<{ accountId: string; amount: string }>;
  },
): Promise<BookJournalOutcome> {
  const rows = await db.query<BookJournalOutcome>(
    `WITH p AS (
       SELECT x.account_id, x.amount, x.ord
         FROM ROWS FROM (jsonb_to_recordset($7::text::jsonb) AS (account_id text, amount numeric))
              WITH ORDINALITY AS x(account_id, amount, ord)
     ), acc AS (
       SELECT a.id, a.kind, a.currency, a.is_sandbox FROM accounts a WHERE a.id IN (SELECT account_id FROM p)
     ), chk AS (
       SELECT (SELECT array_agg(DISTINCT p.account_id) FROM p WHERE p.account_id NOT IN (SELECT id FROM acc))
                AS unknown,
              (SELECT array_agg(acc.id ORDER BY acc.id) FROM acc WHERE acc.is_sandbox <> $5) AS other_mode,
              (SELECT array_agg(u.currency || ' by ' || u.total ORDER BY u.currency)
                 FROM (SELECT acc.currency, sum(p.amount) AS total FROM p JOIN acc ON acc.id = p.account_id
                        GROUP BY acc.currency HAVING sum(p.amount) <> 0) u) AS unbalanced
     ), j AS (
       INSERT INTO journals (id, reference, kind, merchant_id, is_sandbox, metadata)
       SELECT $1, $2, $3, $4, $5, $6::text::jsonb FROM chk
        WHERE chk.unknown IS NULL AND chk.other_mode IS NULL AND chk.unbalanced IS NULL
       ON CONFLICT (reference) DO NOTHING
       RETURNING id
     ), platform_locks AS (
       SELECT a.id FROM accounts a
        WHERE a.id IN (SELECT id FROM acc WHERE kind <> 'WALLET') AND EXISTS (SELECT 1 FROM j)
        ORDER BY a.id FOR KEY SHARE
     ), wallet_locks AS (
       SELECT a.id FROM accounts a
        WHERE a.id IN (SELECT id FROM acc WHERE kind = 'WALLET') AND EXISTS (SELECT 1 FROM j)
          AND (SELECT count(*) FROM platform_locks) >= 0
        ORDER BY a.id FOR NO KEY UPDATE
     ), moved AS (
       UPDATE accounts a SET balance = a.balance + d.amount, updated_at = now()
         FROM (SELECT account_id, sum(amount) AS amount FROM p GROUP BY account_id) d
        WHERE a.id = d.account_id AND a.id IN (SELECT id FROM wallet_locks)
       RETURNING a.id
     ), written AS (
       INSERT INTO entries (journal_id, account_id, amount, currency)
       SELECT j.id, p.account_id, p.amount, acc.currency FROM j, p JOIN acc ON acc.id = p.account_id
        ORDER BY p.ord
       RETURNING 1
     )
     SELECT (SELECT id FROM j) AS journal_id,
            EXISTS (SELECT 1 FROM journals WHERE reference = $2) AS replayed,
            chk.unknown, chk.other_mode, chk.unbalanced
       FROM chk`,
    [
      j.id,
      j.reference,
      j.kind,
      j.merchantId,
      j.isSandbox,
      JSON.stringify(j.metadata),
      // Postings as JSON text, amounts as strings: exact, and the same on both drivers (postgres.js may
      // send a JS array as its toString() to a connection that has not fetched the array types yet).
      JSON.stringify(j.postings.map((p) => ({ account_id: p.accountId, amount: p.amount }))),
    ],
  );
  return rows[0];
}

/**
 * The balance of any account: a wallet's cached balance, a platform account's sum of entries (it stores
 * none, so that no credit ever waits on it). Undefined for an unknown account.
 */
export async function accountBalance(db: Db, accountId: string): Promise<string | undefined> {
  const rows = await db.query<{ balance: string }>(
    "SELECT balance::text AS balance FROM account_balances WHERE id = $1",
    [accountId],
  );
  return rows[0]?.balance;
}

export type PlatformBalance = {
  id: string;
  is_sandbox: boolean;
  kind: string;
  currency: string;
  rail: string;
  balance: string;
};

/** Every platform account (WORLD, FEES, and whatever non-wallet kind comes) with its derived balance. */
export async function platformBalances(db: Db, isSandbox: boolean): Promise<PlatformBalance[]> {
  return await db.query<PlatformBalance>(
    `SELECT id, is_sandbox, kind, currency, rail, balance::text AS balance FROM account_balances
      WHERE merchant_id IS NULL AND kind <> 'WALLET' AND is_sandbox = $1 ORDER BY kind, currency, rail`,
    [isSandbox],
  );
}
