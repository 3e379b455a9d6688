// The one helper through which all money moves (after formancehq/ledger): in one statement it checks
// the reference was never booked, moves the wallets' balances, writes the entries, then (same
// transaction) runs the caller's follow-up (events, state). A journal is balanced per currency, and a
// wallet never goes below zero. Platform accounts (WORLD, FEES...) store no balance: it is the sum of
// their entries (db/ledger.ts accountBalance), so credits to different merchants never share a row lock.
import type { Db } from "../db/mod.ts";
import { PG_CHECK_VIOLATION, pgConstraint, pgErrorCode } from "../db/mod.ts";
import { bookJournal, type BookJournalOutcome } from "../db/ledger.ts";
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
  const journal = {
    id: newId("jrn"),
    reference: input.reference,
    kind: input.kind,
    merchantId: input.merchantId,
    isSandbox: input.isSandbox,
    metadata: input.metadata ?? {},
    postings: postings.map((p) => ({ accountId: p.accountId, amount: p.amount.toFixed() })),
  };
  try {
    // Without `then` the journal is one statement, atomic on its own (or part of the caller's transaction
    // when `db` is one): one round trip. With `then`, that statement and the callback share a transaction.
    if (!then) return outcome(input.reference, await bookJournal(db, journal));
    return await db.tx(async (tx) => {
      const result = outcome(input.reference, await bookJournal(tx, journal));
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

/** What the booking statement found, as a result or as the error a wrong journal deserves. */
function outcome(reference: string, o: BookJournalOutcome): JournalResult {
  if (o.journal_id) return { journalId: o.journal_id, booked: true };
  // A reference already booked is a replay whatever its postings say: the reference alone decides.
  if (o.replayed) return { booked: false };
  if (o.unknown) throw new Error(`journal ${reference}: unknown account ${o.unknown.join(", ")}`);
  if (o.other_mode) {
    throw new Error(`journal ${reference}: account ${o.other_mode.join(", ")} is in the other mode`);
  }
  if (o.unbalanced) throw new Error(`journal ${reference} is unbalanced in ${o.unbalanced.join(", ")}`);
  // Booked concurrently by another transaction that committed while this statement waited on it.
  return { booked: false };
}
