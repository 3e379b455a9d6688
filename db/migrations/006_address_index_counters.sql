-- One counter per HD account: a deriver reserves a range of derivation indexes with one atomic UPDATE,
-- so two derivers (background refills, or a request that found the pool empty) never derive the same index.
CREATE TABLE address_index_counters (
  account_index integer PRIMARY KEY,
  next_index integer NOT NULL CHECK (next_index >= 0)
);
INSERT INTO address_index_counters (account_index, next_index)
SELECT account_index, max(derivation_index) + 1 FROM deposit_addresses GROUP BY account_index;
