-- Modes never mix (issue 9): an Idempotency-Key and an externalRef belong to (merchant, mode), so a
-- sandbox call can neither replay into a live one nor block or reveal a live reference.

-- Records written before this migration do not say which mode answered them, and a sandbox answer
-- replayed to a live caller is the harm being fixed, so they are dropped rather than guessed. They live
-- 24 hours and no record guards a money movement yet (pay-in creation moves none): the worst a retry of
-- such a request can do is create a second pay-in.
DELETE FROM idempotency_keys;
ALTER TABLE idempotency_keys ADD COLUMN is_sandbox boolean NOT NULL;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (merchant_id, is_sandbox, key);
-- The sandbox reset deletes by (merchant_id, is_sandbox); the primary key serves it. The hourly purge
-- deletes by expiry.
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- Same name as before, so the duplicate detection in domain/payins keeps recognising it.
ALTER TABLE payins DROP CONSTRAINT payins_external_ref_unique;
CREATE UNIQUE INDEX payins_external_ref_unique ON payins (merchant_id, is_sandbox, external_ref);
