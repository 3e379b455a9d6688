-- Bulk payments: a batch of items on one rail, debited once at execution (journal `bulk:<id>:execute`,
-- wallet -> IN_FLIGHT), then each item paid on its own through the single-payment path: a USDT item
-- becomes an outbound_transfers row (kind PAYOUT) that the broadcaster sends exactly once and that
-- settles or releases its own share of IN_FLIGHT. A retry debits again only what failed items released.
CREATE TABLE bulk_batches (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  rail text NOT NULL CHECK (rail IN ('USDT_TRC20', 'MOBILE_MONEY')),
  currency text NOT NULL CHECK (currency IN ('USDT_TRC20', 'XOF')),
  label text,
  status text NOT NULL
    CHECK (status IN ('DRAFT', 'VALIDATED', 'PROCESSING', 'COMPLETED', 'PARTIALLY_COMPLETED', 'CANCELLED')),
  item_count integer NOT NULL DEFAULT 0,
  -- Filled at execution: what the batch debited (amounts + fees), and at each retry the attempt number.
  total_amount numeric NOT NULL DEFAULT 0,
  total_fee numeric NOT NULL DEFAULT 0,
  attempt integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  validated_at timestamptz,
  executed_at timestamptz,
  completed_at timestamptz,
  cancelled_at timestamptz
);
CREATE INDEX bulk_batches_by_merchant ON bulk_batches (merchant_id, is_sandbox, created_at DESC, id DESC);
CREATE INDEX bulk_batches_processing ON bulk_batches (updated_at) WHERE status = 'PROCESSING';

CREATE TABLE bulk_items (
  id text PRIMARY KEY,
  batch_id text NOT NULL REFERENCES bulk_batches(id),
  line integer NOT NULL,
  wallet_address text NOT NULL,
  -- Mobile money rail: the operator derived from the number's prefix.
  operator text,
  amount numeric NOT NULL CHECK (amount > 0),
  fee numeric NOT NULL CHECK (fee >= 0),
  recipient_name text,
  reference text,
  status text NOT NULL CHECK (status IN ('PENDING', 'QUEUED', 'PROCESSING', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
  attempt integer NOT NULL DEFAULT 0,
  -- The payment carrying the current attempt (outbound_transfers.id for USDT).
  payment_id text,
  tx_hash text,
  failure_reason text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT bulk_item_line UNIQUE (batch_id, line)
);
CREATE INDEX bulk_items_queued ON bulk_items (batch_id, line) WHERE status = 'QUEUED';
CREATE INDEX bulk_items_processing ON bulk_items (batch_id) WHERE status = 'PROCESSING';

-- A USDT item's attempt is one payout row, never two: the unique index makes a repeated dispatch fail.
ALTER TABLE outbound_transfers ADD COLUMN bulk_item_id text REFERENCES bulk_items(id);
ALTER TABLE outbound_transfers ADD COLUMN bulk_attempt integer;
CREATE UNIQUE INDEX outbound_bulk_attempt ON outbound_transfers (bulk_item_id, bulk_attempt)
  WHERE bulk_item_id IS NOT NULL;
