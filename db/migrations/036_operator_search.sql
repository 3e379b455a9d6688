-- The operator's search (issue 22): any pay-in, payout, withdrawal, bulk item or sweep by transaction
-- hash, externalRef, provider reference or customer phone/e-mail, with one index lookup each. Partial
-- indexes: rows without the value (most, at creation) cost nothing to insert.
CREATE INDEX payins_by_tx_hash ON payins (tx_hash) WHERE tx_hash IS NOT NULL;
CREATE INDEX payins_by_external_ref ON payins (external_ref) WHERE external_ref IS NOT NULL;
CREATE INDEX payins_by_customer_email ON payins (lower(customer_email)) WHERE customer_email IS NOT NULL;
CREATE INDEX payins_by_customer_phone ON payins (customer_phone) WHERE customer_phone IS NOT NULL;
CREATE INDEX outbound_by_tx_hash ON outbound_transfers (tx_hash) WHERE tx_hash IS NOT NULL;
CREATE INDEX outbound_by_external_ref_alone ON outbound_transfers (external_ref) WHERE external_ref IS NOT NULL;
CREATE INDEX outbound_by_destination ON outbound_transfers (destination_address);
CREATE INDEX bulk_items_by_tx_hash ON bulk_items (tx_hash) WHERE tx_hash IS NOT NULL;
CREATE INDEX bulk_items_by_recipient ON bulk_items (wallet_address);
CREATE INDEX bulk_items_by_reference ON bulk_items (reference) WHERE reference IS NOT NULL;
CREATE INDEX merchants_by_created ON merchants (created_at DESC, id DESC);
-- The operator's queue: what waits for a reviewer, counted and listed oldest first.
CREATE INDEX outbound_awaiting_review ON outbound_transfers (created_at, id) WHERE status IN ('PENDING', 'PENDING_REVIEW');
