-- Direct deposits: each merchant has one standing USDT address per mode, on its own HD account, for
-- top-ups no pay-in created. Transfers to it are recorded like late funds (kind DIRECT, no pay-in) and
-- credited at 20 confirmations with the deposit.* events; the address is swept like a pay-in's.
CREATE TABLE merchant_deposit_addresses (
  address text PRIMARY KEY,
  address_hex text NOT NULL UNIQUE,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  account_index integer NOT NULL,
  derivation_index integer NOT NULL,
  qr_png text NOT NULL,
  created_at timestamptz NOT NULL,
  CONSTRAINT one_standing_address_per_mode UNIQUE (merchant_id, is_sandbox),
  CONSTRAINT standing_index_unique UNIQUE (account_index, derivation_index)
);

INSERT INTO address_index_counters (account_index, next_index) VALUES (4, 0), (5, 0) ON CONFLICT DO NOTHING;

ALTER TABLE chain_transfers ALTER COLUMN payin_id DROP NOT NULL;
ALTER TABLE chain_transfers DROP CONSTRAINT IF EXISTS chain_transfers_kind_check;
ALTER TABLE chain_transfers ADD CONSTRAINT chain_transfers_kind_check CHECK (kind IN ('PAYIN', 'DEPOSIT', 'DIRECT'));
ALTER TABLE chain_transfers ADD CONSTRAINT direct_has_no_payin CHECK ((kind = 'DIRECT') = (payin_id IS NULL));
