// SQL of the unified transaction history (migration 026): the `transactions` projection, newest first,
// filtered by the columns its indexes lead with, searched through its trigram index. Statements are built
// from the filters actually given (never `$n IS NULL OR ...`), so each combination gets its own plan that
// can use the index for that filter; values are always parameters, planned with their values each time
// (`oneShot`): a generic plan cannot tell a rare search term (trigram index) from a frequent one (walk the
// newest rows and stop at the page), nor a rare status from a common one.
import type { Db } from "./mod.ts";

export type TransactionRow = {
  id: string;
  merchant_id: string;
  is_sandbox: boolean;
  type: "PAYIN" | "PAYOUT" | "WITHDRAWAL" | "CONVERSION" | "BULK_ITEM" | "DEPOSIT" | "REFUND" | "DISPUTE";
  status: string;
  payment_method: string | null;
  wallet_rail: string;
  currency: string;
  amount: string;
  amount_received: string | null;
  fee: string;
  fee_currency: string;
  net_amount: string;
  to_currency: string | null;
  to_wallet_rail: string | null;
  to_amount: string | null;
  external_ref: string | null;
  customer_name: string | null;
  customer_email: string | null;
  customer_phone: string | null;
  recipient_name: string | null;
  destination: string | null;
  note: string | null;
  tx_hash: string | null;
  batch_id: string | null;
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
};

/** Every column but search_text, which is an index's business. */
export const COLUMNS = `id, merchant_id, is_sandbox, type, status, payment_method, wallet_rail, currency,
  amount::text, amount_received::text, fee::text, fee_currency, net_amount::text, to_currency, to_wallet_rail,
  to_amount::text, external_ref, customer_name, customer_email, customer_phone, recipient_name, destination,
  note, tx_hash, batch_id, failure_reason, created_at, updated_at`;

export type TransactionFilter = {
  merchantId: string;
  isSandbox: boolean;
  type?: string;
  status?: string;
  currency?: string;
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  before?: Date;
  /** Already escaped for LIKE (see likeContains); lower-cased in SQL like search_text. */
  searchPattern?: string;
};

/** A position in the history: the last row a page showed. */
export type Keyset = { createdAt: Date; id: string };

/** `term` as a LIKE pattern that matches it literally anywhere: `\`, `%` and `_` lose their meaning. */
export function likeContains(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The filter as SQL conditions, its values appended to `params`; `withSearch: false` leaves search out. */
export function whereOf(f: TransactionFilter, params: unknown[], withSearch = true): string {
  const add = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const clauses = [`merchant_id = ${add(f.merchantId)}`, `is_sandbox = ${add(f.isSandbox)}`];
  if (f.type !== undefined) clauses.push(`type = ${add(f.type)}`);
  if (f.status !== undefined) clauses.push(`status = ${add(f.status)}`);
  if (f.currency !== undefined) clauses.push(`currency = ${add(f.currency)}`);
  if (f.from !== undefined) clauses.push(`created_at >= ${add(f.from)}`);
  if (f.before !== undefined) clauses.push(`created_at < ${add(f.before)}`);
  if (withSearch && f.searchPattern !== undefined) clauses.push(searchClause(f.searchPattern, params));
  return clauses.join(" AND ");
}

export function searchClause(pattern: string, params: unknown[]): string {
  params.push(pattern);
  return `search_text LIKE lower($${params.length}::text)`;
}

/** Rows after the keyset position, newest first. */
export function keysetClause(after: Keyset, params: unknown[]): string {
  params.push(after.createdAt, after.id);
  return `(created_at, id) < ($${params.length - 1}, $${params.length})`;
}

export type Statement = { text: string; params: unknown[] };

/**
 * One page, newest first: after `after` (keyset) when given, else skipping `offset` rows. Asks for
 * `limit` rows; the caller asks one more than it shows to learn whether another page follows.
 */
export function listStatement(
  filter: TransactionFilter,
  page: { limit: number; offset?: number; after?: Keyset },
): Statement {
  const params: unknown[] = [];
  let where = whereOf(filter, params);
  if (page.after) where += ` AND ${keysetClause(page.after, params)}`;
  params.push(page.limit, page.offset ?? 0);
  return {
    text: `SELECT ${COLUMNS} FROM transactions WHERE ${where}
      ORDER BY created_at DESC, id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  };
}

/** How many rows match, counting no further than `cap` (a count of a million rows is not a list's job). */
export function countStatement(filter: TransactionFilter, cap: number): Statement {
  const params: unknown[] = [];
  const where = whereOf(filter, params);
  params.push(cap);
  return {
    text:
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM transactions WHERE ${where} LIMIT $${params.length}) t`,
    params,
  };
}

export async function listTransactionRows(
  db: Db,
  filter: TransactionFilter,
  page: { limit: number; offset?: number; after?: Keyset },
): Promise<TransactionRow[]> {
  const { text, params } = listStatement(filter, page);
  return await db.query<TransactionRow>(text, params, { oneShot: true });
}

export async function countTransactionRows(db: Db, filter: TransactionFilter, cap: number): Promise<number> {
  const { text, params } = countStatement(filter, cap);
  const [row] = await db.query<{ n: number }>(text, params, { oneShot: true });
  return row.n;
}

export async function findTransactionRow(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
  id: string,
): Promise<TransactionRow | undefined> {
  return (await db.query<TransactionRow>(
    `SELECT ${COLUMNS} FROM transactions WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3`,
    [id, scope.merchantId, scope.isSandbox],
  ))[0];
}

/** Oldest first from `after` (exclusive): the export's pages, on the same list index read backwards. */
export async function transactionRowsAfter(
  db: Db,
  filter: TransactionFilter,
  after: Keyset | null,
  limit: number,
): Promise<TransactionRow[]> {
  const params: unknown[] = [];
  let where = whereOf(filter, params);
  if (after) {
    params.push(after.createdAt, after.id);
    where += ` AND (created_at, id) > ($${params.length - 1}, $${params.length})`;
  }
  params.push(limit);
  return await db.query<TransactionRow>(
    `SELECT ${COLUMNS} FROM transactions WHERE ${where} ORDER BY created_at, id LIMIT $${params.length}`,
    params,
  );
}
