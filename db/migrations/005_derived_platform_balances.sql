-- No hot rows in the ledger. Every credit used to UPDATE its rail's shared WORLD and FEES rows, so all
-- merchants' credits queued behind one row lock. Now only merchant wallets keep a cached balance (their
-- own row serializes their own movements, under CHECK (balance >= 0)); a platform account (any kind but
-- WALLET: WORLD, FEES, and later treasury or network costs) has no cached balance at all: its balance is
-- the sum of its entries, read through the account_balances view (db/ledger.ts accountBalance).

-- NULL, not a stale number: a reader that forgets the view gets nothing rather than a wrong figure.
ALTER TABLE accounts ALTER COLUMN balance DROP NOT NULL;
ALTER TABLE accounts ALTER COLUMN balance DROP DEFAULT;
UPDATE accounts SET balance = NULL WHERE kind <> 'WALLET';
ALTER TABLE accounts ADD CONSTRAINT balance_cached_on_wallets_only
  CHECK ((kind = 'WALLET') = (balance IS NOT NULL));

-- Accounts inserted without a balance (any later migration adding a platform kind, or a wallet) get the
-- right one: 0 for a wallet, NULL for a platform account, whatever the INSERT said.
CREATE FUNCTION accounts_initial_balance() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.balance := CASE WHEN NEW.kind = 'WALLET' THEN coalesce(NEW.balance, 0) ELSE NULL END;
  RETURN NEW;
END
$$;
CREATE TRIGGER accounts_initial_balance BEFORE INSERT ON accounts
  FOR EACH ROW EXECUTE FUNCTION accounts_initial_balance();

-- Summing a platform account's entries reads this index only (no heap visits once vacuumed).
CREATE INDEX entries_account_amount ON entries (account_id) INCLUDE (amount);
DROP INDEX entries_account;

-- Every account with its balance: a wallet's cached one, a platform account's sum of entries.
CREATE VIEW account_balances AS
SELECT a.id, a.merchant_id, a.is_sandbox, a.kind, a.currency, a.rail,
       CASE WHEN a.kind = 'WALLET' THEN a.balance
            ELSE coalesce((SELECT sum(e.amount) FROM entries e WHERE e.account_id = a.id), 0)
       END AS balance
  FROM accounts a;
