-- The console's search with a big history (issue 22): every arm of each table's OR must have an index of
-- its own, or PostgreSQL reads the whole table for that one arm (a BitmapOr needs all of them). The
-- outbound provider reference had none, so every search walked all payouts and withdrawals: 250 ms with a
-- 200,000-transaction history against a few ms. A pay-in's provider reference is indexed only behind its
-- payment method (the uniqueness rule), which the search does not name: a scan of that whole index.
-- Sweeps were found by address, current step and any of their transactions with no index at all; the
-- search asks `tx_ids @> ARRAY[q]` (the same answer as `q = ANY(tx_ids)`) so the GIN index serves it.
CREATE INDEX outbound_by_provider_ref ON outbound_transfers (provider_ref) WHERE provider_ref IS NOT NULL;
CREATE INDEX payins_by_provider_ref_alone ON payins (provider_ref) WHERE provider_ref IS NOT NULL;
CREATE INDEX sweeps_by_address ON sweeps (address);
CREATE INDEX sweeps_by_step_tx ON sweeps (step_tx_id) WHERE step_tx_id IS NOT NULL;
CREATE INDEX sweeps_by_tx_ids ON sweeps USING gin (tx_ids);
