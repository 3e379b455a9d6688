// The one helper through which all money moves (after formancehq/ledger): it checks the journal, then in
// one statement books it unless its reference was booked before, moves the wallets' balances and writes
// the entries, then (same transaction) runs the caller's follow-up (events, state). A journal is balanced
// per currency, and a wallet never goes below zero. Platform accounts (WORLD, FEES...) store no balance:
// it is the sum of their entries (db/ledger.ts accountBalance), so credits to different merchants never
// share a row lock.
import type { Db } from "../db/mod.ts";
import { PG_CHECK_VIOLATION, pgConstraint, pgErrorCode } from "../db/mod.ts";
import { bookJournal, describeAccounts } from "../db/ledger.ts";
import { AppError } from "./errors.ts";
import { newId } from "./ids.ts";
import { Decimal } from "./money.ts";

export type Posting = { accountId: string; amount: Decimal.Value };

export type JournalInput = {
  /** Business reference, unique forever: `payin:<id>`, `chain:<txid>:<log>`, ... */
  reference: string;
  kind: string;
  merchantId: string | null;
  isSandbox: boolean;
  postings: Posting[];
  metadata?: Record<string, unknown>;
};

export type JournalResult = { journalId: string; booked: true } | { booked: false };

/**
 * Books a journal once. Returns `{booked: false}` when the reference was already booked (a replay);
 * throws INSUFFICIENT_BALANCE when a wallet would go negative, rolling the whole transaction back.
 * `then` runs inside the same transaction after the postings (state changes, events).
 */
export async function postJournal(
  db: Db,
  input: JournalInput,
  then?: (tx: Db, journalId: string) => Promise<void>,
): Promise<JournalResult> {
  const postings = input.postings.map((p) => ({ accountId: p.accountId, amount: new Decimal(p.amount) }));
  if (postings.length < 2) throw new Error(`journal ${input.reference} needs at least two postings`);
  if (postings.some((p) => p.amount.isZero() || !p.amount.isFinite())) {
    throw new Error(`journal ${input.reference} has a zero or non-finite posting`);
  }
  try {
    const journal = await checkedJournal(db, input, postings);
    // Without `then` the journal is one statement, atomic on its own (or part of the caller's transaction
    // when `db` is one): one round trip. With `then`, that statement and the callback share a transaction.
    if (!then) return booked(await bookJournal(db, journal));
    return await db.tx(async (tx) => {
      const result = booked(await bookJournal(tx, journal));
      if (result.booked) await then(tx, result.journalId);
      return result;
    });
  } catch (err) {
    // Only the wallet constraint means "not enough money"; any other CHECK (say, one broken by `then`)
    // is a bug and must surface as such, not as a 400 the client would retry with less.
    if (pgErrorCode(err) === PG_CHECK_VIOLATION && pgConstraint(err) === "wallet_balance_non_negative") {
      throw new AppError("INSUFFICIENT_BALANCE", "Balance too low for this operation");
    }
    throw err;
  }
}

function booked(journalId: string | null): JournalResult {
  // null: the reference was booked before, or by a concurrent transaction this statement waited for.
  return journalId ? { journalId, booked: true } : { booked: false };
}

/**
 * Checks a journal before it touches anything: every account exists and is in the journal's mode, and
 * the postings sum to zero per currency. Answers the rows to write: one entry per posting, the platform
 * accounts to lock, and each wallet's net movement.
 */
async function checkedJournal(
  db: Db,
  input: JournalInput,
  postings: Array<{ accountId: string; amount: Decimal }>,
) {
  const accounts = await describeAccounts(db, postings.map((p) => p.accountId));
  const totals = new Map<string, Decimal>();
  const walletMoves = new Map<string, Decimal>();
  const platformIds = new Set<string>();
  const entries = postings.map((p) => {
    const account = accounts.get(p.accountId);
    if (!account) throw new Error(`journal ${input.reference}: unknown account ${p.accountId}`);
    if (account.isSandbox !== input.isSandbox) {
      throw new Error(`journal ${input.reference}: account ${p.accountId} is in the other mode`);
    }
    totals.set(account.currency, (totals.get(account.currency) ?? new Decimal(0)).plus(p.amount));
    if (account.kind === "WALLET") {
      walletMoves.set(p.accountId, (walletMoves.get(p.accountId) ?? new Decimal(0)).plus(p.amount));
    } else platformIds.add(p.accountId);
    return { accountId: p.accountId, amount: p.amount.toFixed(), currency: account.currency };
  });
  for (const [currency, total] of totals) {
    if (!total.isZero()) {
      throw new Error(`journal ${input.reference} is unbalanced in ${currency} by ${total}`);
    }
  }
  return {
    id: newId("jrn"),
    reference: input.reference,
    kind: input.kind,
    merchantId: input.merchantId,
    isSandbox: input.isSandbox,
    metadata: input.metadata ?? {},
    entries,
    platformIds: [...platformIds],
    walletMoves: [...walletMoves].map(([accountId, amount]) => ({ accountId, amount: amount.toFixed() })),
  };
}
