// The one helper through which all money moves (after formancehq/ledger): in one transaction it checks
// the reference was never booked, moves every balance, writes the entries, and writes the events the
// movement causes. A journal is balanced per currency, and a wallet never goes below zero.
import type { Db } from "../db/mod.ts";
import { PG_CHECK_VIOLATION, pgConstraint, pgErrorCode } from "../db/mod.ts";
import { applyToBalance, insertEntries, insertJournalOnce } from "../db/ledger.ts";
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
    return await db.tx(async (tx) => {
      const journalId = newId("jrn");
      const fresh = await insertJournalOnce(tx, {
        id: journalId,
        reference: input.reference,
        kind: input.kind,
        merchantId: input.merchantId,
        isSandbox: input.isSandbox,
        metadata: input.metadata ?? {},
      });
      if (!fresh) return { booked: false } as const;
      // A fixed lock order (by account id) keeps concurrent journals from deadlocking each other.
      const ordered = [...postings].sort((
        a,
        b,
      ) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0));
      const totals = new Map<string, Decimal>();
      const entries = [];
      for (const p of ordered) {
        const account = await applyToBalance(tx, p.accountId, p.amount.toFixed());
        if (!account) throw new Error(`journal ${input.reference}: unknown account ${p.accountId}`);
        if (account.is_sandbox !== input.isSandbox) {
          throw new Error(`journal ${input.reference}: account ${p.accountId} is in the other mode`);
        }
        totals.set(account.currency, (totals.get(account.currency) ?? new Decimal(0)).plus(p.amount));
        entries.push({ accountId: p.accountId, amount: p.amount.toFixed(), currency: account.currency });
      }
      for (const [currency, total] of totals) {
        if (!total.isZero()) {
          throw new Error(`journal ${input.reference} is unbalanced in ${currency} by ${total}`);
        }
      }
      await insertEntries(tx, journalId, entries);
      if (then) await then(tx, journalId);
      return { journalId, booked: true } as const;
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
