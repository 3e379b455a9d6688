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
  balance: string;
  updated_at: Date;
};

export async function insertWallet(
  db: Db,
  w: { id: string; merchantId: string; isSandbox: boolean; currency: string; rail: string },
): Promise<void> {
  await db.query(
    `INSERT INTO accounts (id, merchant_id, is_sandbox, kind, currency, rail) VALUES ($1, $2, $3, 'WALLET', $4, $5)`,
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
  kind: "WORLD" | "FEES" | "IN_FLIGHT" | "NETWORK_COSTS" | "TREASURY",
  isSandbox: boolean,
  rail: string,
): Promise<AccountRow> {
  const row = (await db.query<AccountRow>(
    `SELECT * FROM accounts WHERE merchant_id IS NULL AND kind = $1 AND is_sandbox = $2 AND rail = $3`,
    [kind, isSandbox, rail],
  ))[0];
  if (!row) throw new Error(`system account ${kind}/${rail} missing: migrations not applied?`);
  return row;
}

/** Inserts the journal unless its reference exists; returns false when it was already booked. */
export async function insertJournalOnce(
  db: Db,
  j: {
    id: string;
    reference: string;
    kind: string;
    merchantId: string | null;
    isSandbox: boolean;
    metadata: object;
  },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO journals (id, reference, kind, merchant_id, is_sandbox, metadata)
     VALUES ($1, $2, $3, $4, $5, $6::text::jsonb) ON CONFLICT (reference) DO NOTHING RETURNING id`,
    [j.id, j.reference, j.kind, j.merchantId, j.isSandbox, JSON.stringify(j.metadata)],
  );
  return rows.length === 1;
}

/** Moves one account's cached balance; the CHECK constraint refuses a wallet going below zero. */
export async function applyToBalance(
  db: Db,
  accountId: string,
  amount: string,
): Promise<{ currency: string; is_sandbox: boolean } | undefined> {
  return (await db.query<{ currency: string; is_sandbox: boolean }>(
    `UPDATE accounts SET balance = balance + $2::numeric, updated_at = now() WHERE id = $1 RETURNING currency, is_sandbox`,
    [accountId, amount],
  ))[0];
}

export async function insertEntries(
  db: Db,
  journalId: string,
  entries: ReadonlyArray<{ accountId: string; amount: string; currency: string }>,
): Promise<void> {
  const params: unknown[] = [journalId];
  const values = entries.map((e, i) => {
    params.push(e.accountId, e.amount, e.currency);
    return `($1, $${i * 3 + 2}, $${i * 3 + 3}::numeric, $${i * 3 + 4})`;
  });
  await db.query(
    `INSERT INTO entries (journal_id, account_id, amount, currency) VALUES ${values.join(", ")}`,
    params,
  );
}
