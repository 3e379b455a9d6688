// SQL of the sandbox reset: finding a merchant's sandbox journals, undoing their effect on the cached
// balances, and deleting the rows of the tables that hold sandbox data. Every statement here is scoped
// to `is_sandbox = true`, so a live row can never match.
import type { Db } from "./mod.ts";

/**
 * Locks every account a sandbox reset may move: the sandbox WORLD and FEES accounts and the merchant's
 * sandbox wallets, in id order (the order postJournal locks in, so neither can deadlock the other). Once
 * held, no sandbox journal touching them can commit until the reset does, so the set of journals read
 * next is exact, and a second reset of the same merchant waits and then finds nothing left to undo.
 */
export async function lockSandboxAccounts(db: Db, merchantId: string): Promise<void> {
  await db.query(
    `SELECT id FROM accounts WHERE is_sandbox = true AND (merchant_id IS NULL OR merchant_id = $1)
      ORDER BY id FOR UPDATE`,
    [merchantId],
  );
}

/** Locks the merchant's sandbox payouts, withdrawals and bulk batches, in id order, before the accounts. */
export async function lockSandboxMoneyOut(db: Db, merchantId: string): Promise<void> {
  await db.query(
    `SELECT id FROM outbound_transfers WHERE merchant_id = $1 AND is_sandbox = true ORDER BY id FOR UPDATE`,
    [merchantId],
  );
  await db.query(
    `SELECT id FROM bulk_batches WHERE merchant_id = $1 AND is_sandbox = true ORDER BY id FOR UPDATE`,
    [merchantId],
  );
}

/**
 * The merchant's sandbox journals: those booked in its name, and any other sandbox journal that moved
 * one of its sandbox wallets (a platform adjustment, say), so that its wallets end with no entries left.
 */
export async function listSandboxJournalIds(db: Db, merchantId: string): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM journals WHERE merchant_id = $1 AND is_sandbox = true
     UNION
     SELECT e.journal_id FROM entries e JOIN accounts a ON a.id = e.account_id
      WHERE a.merchant_id = $1 AND a.is_sandbox = true AND a.kind = 'WALLET'`,
    [merchantId],
  );
  return rows.map((r) => r.id);
}

export type AccountTotal = { account_id: string; is_sandbox: boolean; total: string; entries: number };

/** What the given journals added to each account, ordered by account id (the ledger's lock order). */
export async function sumEntriesByAccount(db: Db, journalIds: string[]): Promise<AccountTotal[]> {
  const rows = await db.query<{ account_id: string; is_sandbox: boolean; total: string; entries: string }>(
    `SELECT e.account_id, a.is_sandbox, sum(e.amount)::text AS total, count(*) AS entries
       FROM entries e JOIN accounts a ON a.id = e.account_id
      WHERE e.journal_id = ANY($1::text[])
      GROUP BY e.account_id, a.is_sandbox
      ORDER BY e.account_id`,
    [journalIds],
  );
  return rows.map((r) => ({ ...r, entries: Number(r.entries) }));
}

/** Takes back what deleted entries had added; live accounts are out of reach by construction. */
export async function subtractFromSandboxBalance(db: Db, accountId: string, amount: string): Promise<void> {
  await db.query(
    `UPDATE accounts SET balance = balance - $2::numeric, updated_at = now()
      WHERE id = $1 AND is_sandbox = true`,
    [accountId, amount],
  );
}

/** Deletes sandbox journals (their entries go with them, ON DELETE CASCADE); returns how many. */
export async function deleteSandboxJournals(db: Db, journalIds: string[]): Promise<number> {
  const rows = await db.query<{ n: string }>(
    `WITH gone AS (DELETE FROM journals WHERE id = ANY($1::text[]) AND is_sandbox = true RETURNING 1)
     SELECT count(*) AS n FROM gone`,
    [journalIds],
  );
  return Number(rows[0].n);
}

/**
 * Deletes one merchant's sandbox rows from a table that has `merchant_id` and `is_sandbox` columns.
 * The table name comes from the domain's fixed list, never from a request; the pattern is a backstop.
 */
export async function deleteSandboxRows(db: Db, table: string, merchantId: string): Promise<number> {
  if (!/^[a-z][a-z0-9_]*$/.test(table)) throw new Error(`not a table name: ${table}`);
  const rows = await db.query<{ n: string }>(
    `WITH gone AS (DELETE FROM ${table} WHERE merchant_id = $1 AND is_sandbox = true RETURNING 1)
     SELECT count(*) AS n FROM gone`,
    [merchantId],
  );
  return Number(rows[0].n);
}

/**
 * Deletes the rows of a table without mode columns whose `column` points at one of the merchant's
 * sandbox rows in `parent` (a bulk batch's items, say). Names come from the domain's fixed list.
 */
export async function deleteSandboxChildRows(
  db: Db,
  table: string,
  [column, parent]: readonly [string, string],
  merchantId: string,
): Promise<number> {
  for (const name of [table, column, parent]) {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`not a table or column name: ${name}`);
  }
  const rows = await db.query<{ n: string }>(
    `WITH gone AS (
       DELETE FROM ${table} WHERE ${column} IN (SELECT id FROM ${parent} WHERE merchant_id = $1 AND is_sandbox = true)
       RETURNING 1)
     SELECT count(*) AS n FROM gone`,
    [merchantId],
  );
  return Number(rows[0].n);
}
