-- Pay-ins on every rail, the HD deposit addresses they receive on, and the chain scanner's state.

-- Derived ahead of need by a background pool; a pay-in claims one with FOR UPDATE SKIP LOCKED.
CREATE TABLE deposit_addresses (
  address text PRIMARY KEY,
  address_hex text NOT NULL UNIQUE,
  is_sandbox boolean NOT NULL,
  account_index integer NOT NULL,
  derivation_index integer NOT NULL,
  payin_id text UNIQUE,
  -- PNG data URL of the address's QR code, drawn when the address is derived (off the hot path).
  qr_png text NOT NULL,
  claimed_at timestamptz,
  -- Watched until then for late funds (expiry + 7 days); NULL while unclaimed.
  watch_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_index, derivation_index)
);
CREATE INDEX deposit_addresses_free ON deposit_addresses (is_sandbox, derivation_index) WHERE payin_id IS NULL;

CREATE TABLE payins (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  payment_method text NOT NULL CHECK (payment_method IN ('USDT_TRC20', 'CARD', 'MOBILE_MONEY')),
  status text NOT NULL CHECK (status IN ('AWAITING_PAYMENT', 'PENDING', 'CONFIRMING', 'CONFIRMED', 'UNDERPAID', 'OVERPAID', 'EXPIRED', 'FAILED')),
  currency text NOT NULL CHECK (currency IN ('USDT_TRC20', 'XOF')),
  chain text,
  amount numeric NOT NULL CHECK (amount > 0),
  amount_expected numeric NOT NULL,
  network_fee numeric NOT NULL DEFAULT 0,
  amount_received numeric NOT NULL DEFAULT 0,
  service_fee numeric NOT NULL DEFAULT 0,
  net_amount numeric NOT NULL DEFAULT 0,
  address text REFERENCES deposit_addresses(address),
  tx_hash text,
  external_ref text,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  success_url text,
  cancel_url text,
  customer_name text,
  customer_email text,
  customer_phone text,
  operator_code text,
  provider_ref text,
  failure_reason text,
  expires_at timestamptz NOT NULL,
  confirmed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT payins_external_ref_unique UNIQUE (merchant_id, external_ref)
);
CREATE INDEX payins_merchant_list ON payins (merchant_id, is_sandbox, created_at DESC);
CREATE INDEX payins_expiring ON payins (expires_at) WHERE status = 'AWAITING_PAYMENT';
CREATE INDEX payins_confirming ON payins (status) WHERE status = 'CONFIRMING';

-- Every USDT Transfer log seen to a watched address, once (txID + log index).
CREATE TABLE chain_transfers (
  tx_id text NOT NULL,
  log_index integer NOT NULL,
  block_number bigint NOT NULL,
  block_hash text NOT NULL,
  from_address text NOT NULL,
  to_address text NOT NULL,
  amount numeric NOT NULL CHECK (amount > 0),
  merchant_id text NOT NULL REFERENCES merchants(id),
  -- PAYIN: counts toward its pay-in. DEPOSIT: arrived after the pay-in closed (late funds), credited alone.
  kind text NOT NULL CHECK (kind IN ('PAYIN', 'DEPOSIT')),
  payin_id text NOT NULL REFERENCES payins(id),
  is_sandbox boolean NOT NULL,
  -- SEEN until counted; CREDITED once booked (pay-in settled or deposit credited); ORPHANED by a reorg.
  status text NOT NULL DEFAULT 'SEEN' CHECK (status IN ('SEEN', 'CREDITED', 'ORPHANED')),
  block_time timestamptz NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT now(),
  credited_at timestamptz,
  PRIMARY KEY (tx_id, log_index)
);
CREATE INDEX chain_transfers_payin ON chain_transfers (payin_id);
CREATE INDEX chain_transfers_open ON chain_transfers (block_number) WHERE status = 'SEEN';

-- Recent blocks the scanner followed, to notice a fork by parent hash.
CREATE TABLE chain_blocks (
  number bigint PRIMARY KEY,
  hash text NOT NULL,
  parent_hash text NOT NULL,
  block_time timestamptz NOT NULL,
  scanned_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE chain_cursor (
  network text PRIMARY KEY,
  head_seen bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);
