-- Issue 21: each ledger entry carries its journal's time, indexed per account, so a balance at any
-- instant is one index-only range sum over the wallet's entries (entries_account_time), never a walk
-- over the journals since that instant joined to their entries (a one-day statement deep in a long
-- history read every journal booked since: about 6 s for a million-row merchant).
--
-- The value is the journal's: both rows are written by the one ledger statement (db/ledger.ts), and
-- `now()` is the transaction's start time, so the column's default equals the journal's own default.
-- Existing entries take their journal's time here: on a large ledger this rewrites every entry once
-- (and builds one index over them), so it runs as long as a full copy of the entries table.
ALTER TABLE entries ADD COLUMN created_at timestamptz;
UPDATE entries e SET created_at = j.created_at FROM journals j WHERE j.id = e.journal_id;
ALTER TABLE entries ALTER COLUMN created_at SET DEFAULT now();
ALTER TABLE entries ALTER COLUMN created_at SET NOT NULL;
-- Replaces entries_account_amount (account_id) INCLUDE (amount): the same index-only sums per account
-- (platform balances), now also over a time range, for one index's write cost.
CREATE INDEX entries_account_time ON entries (account_id, created_at) INCLUDE (amount);
DROP INDEX entries_account_amount;
