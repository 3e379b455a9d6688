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

// A platform account's id for (kind, mode, rail) is fixed by the migrations and never changes, so once
// found it is kept: a settlement then spends no round trip finding the accounts it books against.
const systemAccountCache = new Map<string, PlatformAccountRow>();

export async function findSystemAccount(
  db: Db,
  kind: "WORLD" | "FEES" | "IN_FLIGHT" | "NETWORK_COSTS" | "TREASURY" | "FX" | "DISPUTES",
  isSandbox: boolean,
  rail: string,
): Promise<PlatformAccountRow> {
  const key = `${kind}:${isSandbox}:${rail}`;
  const cached = systemAccountCache.get(key);
  if (cached) return cached;
  const row = (await db.query<PlatformAccountRow>(
    `SELECT id, merchant_id, is_sandbox, kind, currency, rail, updated_at FROM accounts WHERE merchant_id IS NULL AND kind = $1 AND is_sandbox = $2 AND rail = $3`,
    [kind, isSandbox, rail],
  ))[0];
  if (!row) throw new Error(`system account ${kind}/${rail} missing: migrations not applied?`);
  systemAccountCache.set(key, row);
  return row;
}

/** What the ledger needs to know of an account; none of it ever changes once the account exists. */
export type AccountInfo = { kind: string; currency: string; isSandbox: boolean };

// Accounts are never deleted and never change kind, currency or mode, so their description is safe to
// keep for the life of the process: a journal then needs no lookup round trip. (An id seen inside a
// transaction that then rolled back fails the entries' foreign key later, moving nothing.) Bounded, so a
// process serving many merchants cannot grow it without limit.
const ACCOUNT_INFO_CACHE_MAX = 100_000;
const accountInfoCache = new Map<string, AccountInfo>();

/** Kind, currency and mode of each existing account among `ids` (unknown ids are absent). */
export async function describeAccounts(db: Db, ids: readonly string[]): Promise<Map<string, AccountInfo>> {
  const found = new Map<string, AccountInfo>();
  const missing: string[] = [];
  for (const id of new Set(ids)) {
    const info = accountInfoCache.get(id);
    if (info) found.set(id, info);
    else missing.push(id);
  }
  if (missing.length === 0) return found;
  const rows = await db.query<{ id: string; kind: string; currency: string; is_sandbox: boolean }>(
    `SELECT id, kind, currency, is_sandbox FROM accounts
      WHERE id IN (SELECT jsonb_array_elements_text($1::text::jsonb))`,
    [JSON.stringify(missing)],
  );
  if (accountInfoCache.size + rows.length > ACCOUNT_INFO_CACHE_MAX) accountInfoCache.clear();
  for (const r of rows) {
    const info = { kind: r.kind, currency: r.currency, isSandbox: r.is_sandbox };
    accountInfoCache.set(r.id, info);
    found.set(r.id, info);
  }
  return found;
}

// The statements of bookJournal. Parameters are JSON text with amounts as strings: exact, and the same on
// both drivers (postgres.js may send a JS array as its toString() to a connection that has not fetched
// the array types yet). Each part runs only once the journal row is in (`EXISTS (SELECT 1 FROM j)`), and
// the wallets are locked only after the platform accounts (the one-time filter on platform_locks).
const BOOK_HEAD = `WITH j AS (
       INSERT INTO journals (id, reference, kind, merchant_id, is_sandbox, metadata)
       VALUES ($1, $2, $3, $4, $5, $6::text::jsonb)
       ON CONFLICT (reference) DO NOTHING
       RETURNING id
     ), platform_locks AS (
       SELECT a.id FROM accounts a
        WHERE a.id IN (SELECT jsonb_array_elements_text($7::text::jsonb)) AND EXISTS (SELECT 1 FROM j)
        ORDER BY a.id FOR KEY SHARE
     )`;
const bookEntries = (param: number) =>
  `written AS (
       INSERT INTO entries (journal_id, account_id, amount, currency)
       SELECT j.id, e.account_id, e.amount, e.currency
         FROM j, jsonb_to_recordset($${param}::text::jsonb) AS e(account_id text, amount numeric, currency text)
       RETURNING 1
     )
     SELECT id FROM j`;
/** $8 the wallet (or NULL for none), $9 its movement, $10 the entries. */
const BOOK_ONE_WALLET = `${BOOK_HEAD}, moved AS (
       UPDATE accounts a SET balance = a.balance + $9::numeric, updated_at = now()
        WHERE a.id = $8 AND EXISTS (SELECT 1 FROM j) AND (SELECT count(*) FROM platform_locks) >= 0
       RETURNING a.id
     ), ${bookEntries(10)}`;
/** $8 each wallet's movement, $9 the entries; wallets locked in id order before they move. */
const BOOK_WALLETS = `${BOOK_HEAD}, moves AS (
       SELECT m.account_id, m.amount FROM jsonb_to_recordset($8::text::jsonb) AS m(account_id text, amount numeric)
     ), wallet_locks AS (
       SELECT a.id FROM accounts a
        WHERE a.id IN (SELECT account_id FROM moves) AND EXISTS (SELECT 1 FROM j)
          AND (SELECT count(*) FROM platform_locks) >= 0
        ORDER BY a.id FOR NO KEY UPDATE
     ), moved AS (
       UPDATE accounts a SET balance = a.balance + moves.amount, updated_at = now()
         FROM moves WHERE a.id = moves.account_id AND a.id IN (SELECT id FROM wallet_locks)
       RETURNING a.id
     ), ${bookEntries(9)}`;

/**
 * Books a checked journal in ONE statement (one round trip, atomic without an explicit transaction):
 * inserts the journal unless its reference exists (a replay writes nothing and answers null); locks the
 * platform accounts FOR KEY SHARE (shared: journals never wait on each other there; it keeps the order
 * platform-then-wallets that the sandbox reset, which locks them exclusively, also follows), then the
 * wallets FOR NO KEY UPDATE, each group in id order, so concurrent journals cannot deadlock; moves the
 * wallets' cached balances (the CHECK refuses a negative one and aborts the statement) and writes one
 * entry per posting. Platform accounts store no balance, so no journal updates a row that another
 * merchant's journal needs. The caller has checked accounts, mode and balance per currency.
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
    entries: ReadonlyArray<{ accountId: string; amount: string; currency: string }>;
    platformIds: readonly string[];
    /** Net movement of each wallet of the journal. */
    walletMoves: ReadonlyArray<{ accountId: string; amount: string }>;
  },
): Promise<string | null> {
  const head = [
    j.id,
    j.reference,
    j.kind,
    j.merchantId,
    j.isSandbox,
    JSON.stringify(j.metadata),
    JSON.stringify(j.platformIds),
  ];
  const entries = JSON.stringify(
    j.entries.map((e) => ({ account_id: e.accountId, amount: e.amount, currency: e.currency })),
  );
  // Most journals move one wallet (or none): its UPDATE is its lock, so no separate locking pass.
  const one = j.walletMoves.length <= 1 ? j.walletMoves[0] : undefined;
  const rows = j.walletMoves.length <= 1
    ? await db.query<{ id: string }>(BOOK_ONE_WALLET, [
      ...head,
      one?.accountId ?? null,
      one?.amount ?? null,
      entries,
    ])
    : await db.query<{ id: string }>(BOOK_WALLETS, [
      ...head,
      JSON.stringify(j.walletMoves.map((m) => ({ account_id: m.accountId, amount: m.amount }))),
      entries,
    ]);
  return rows[0]?.id ?? null;
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
