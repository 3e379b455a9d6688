-- One counter per HD account: a deriver reserves a range of derivation indexes with one atomic UPDATE,
-- so two derivers (background refills, or a request that found the pool empty) never derive the same index.
CREATE TABLE address_index_counters (
  account_index integer PRIMARY KEY,
  next_index integer NOT NULL CHECK (next_index >= 0)
);
INSERT INTO address_index_counters (account_index, next_index)
SELECT account_index, max(derivation_index) + 1 FROM deposit_addresses GROUP BY account_index;

-- A process leases a few free addresses at once (one UPDATE per batch) and hands them to its creations;
-- an unused lease returns to the pool when it runs out (a process that stopped).
ALTER TABLE deposit_addresses ADD COLUMN leased_until timestamptz;

-- Inserting a USDT pay-in claims its address in the same statement (so creation is one round trip and one
-- commit). An address another pay-in holds is refused: one address never serves two pay-ins.
-- The 7 days are WATCH_AFTER_EXPIRY_MS (domain/address_pool.ts): late funds are watched that long.
CREATE FUNCTION claim_deposit_address() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE deposit_addresses
     SET payin_id = NEW.id, claimed_at = NEW.created_at, watch_until = NEW.expires_at + interval '7 days',
         leased_until = NULL
   WHERE address = NEW.address AND payin_id IS NULL;
  IF NOT FOUND AND NOT EXISTS (
    SELECT 1 FROM deposit_addresses WHERE address = NEW.address AND payin_id = NEW.id
  ) THEN
    RAISE EXCEPTION 'deposit address % is already claimed', NEW.address USING ERRCODE = 'unique_violation';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER payins_claim_deposit_address AFTER INSERT ON payins
  FOR EACH ROW WHEN (NEW.address IS NOT NULL) EXECUTE FUNCTION claim_deposit_address();
