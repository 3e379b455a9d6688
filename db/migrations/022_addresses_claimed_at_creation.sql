-- Deposit addresses are now derived ahead in each gateway process's memory, from an index range it
-- reserved (address_index_counters), and written once: by the statement that creates the pay-in, already
-- claimed. Before, each address was written three times (derived into the pool, leased, claimed by a
-- trigger that also moved it in all five indexes), which cost the database more than the pay-in itself.

DROP TRIGGER payins_claim_deposit_address ON payins;
DROP FUNCTION claim_deposit_address();

-- Free rows of the old pool were never shown to anyone (an address is only handed out with its pay-in);
-- their indexes stay reserved in the counter, so none is derived again.
DELETE FROM deposit_addresses WHERE payin_id IS NULL;
DROP INDEX deposit_addresses_free;
ALTER TABLE deposit_addresses DROP COLUMN leased_until;
-- An address is a function of (account, index): the primary key on the address already refuses an index
-- derived twice, so this second unique index only cost an entry per pay-in.
ALTER TABLE deposit_addresses DROP CONSTRAINT deposit_addresses_account_index_derivation_index_key;

-- One address never serves two pay-ins: a pay-in's address must be one recorded as claimed by that very
-- pay-in, and the address is the primary key of its row. (address, payin_id) replaces payin_id's own
-- unique index, which nothing looked rows up by.
ALTER TABLE deposit_addresses DROP CONSTRAINT deposit_addresses_payin_id_key;
ALTER TABLE deposit_addresses ADD CONSTRAINT deposit_addresses_claim UNIQUE (address, payin_id);
ALTER TABLE payins DROP CONSTRAINT payins_address_fkey;
ALTER TABLE payins ADD CONSTRAINT payins_address_claimed FOREIGN KEY (address, id)
  REFERENCES deposit_addresses (address, payin_id);
ALTER TABLE deposit_addresses ALTER COLUMN payin_id SET NOT NULL;
-- Rows are written once and never updated now: no room to keep free on their pages.
ALTER TABLE deposit_addresses SET (fillfactor = 100);

-- Most pay-ins carry no externalRef, and NULLs never conflict: only pay-ins that have one need the entry.
DROP INDEX payins_external_ref_unique;
CREATE UNIQUE INDEX payins_external_ref_unique ON payins (merchant_id, is_sandbox, external_ref)
  WHERE external_ref IS NOT NULL;
