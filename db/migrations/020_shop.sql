-- The hosted shop: whom the customer pays (a merchant's display name and logo on every hosted page).
-- Paylink tables, products, promo codes and orders belong to the paylinks migrations; this file adds
-- what the public shop needs on top of them.
ALTER TABLE merchants ADD COLUMN display_name text;
ALTER TABLE merchants ADD COLUMN logo_data_url text;

-- Rate locks: a customer who picked a rail gets the paylink-currency -> rail-currency rate for 5 minutes;
-- the checkout consumes a lock once (used_at, order_id), inside the order's own transaction.
CREATE TABLE paylink_rate_locks (
  id text PRIMARY KEY,
  paylink_id text NOT NULL REFERENCES paylinks(id) ON DELETE CASCADE,
  is_sandbox boolean NOT NULL,
  rail text NOT NULL CHECK (rail IN ('USDT_TRC20', 'CARD', 'MOBILE_MONEY')),
  from_currency text NOT NULL CHECK (from_currency IN ('USDT_TRC20', 'XOF')),
  to_currency text NOT NULL CHECK (to_currency IN ('USDT_TRC20', 'XOF')),
  rate numeric NOT NULL CHECK (rate > 0),
  rate_as_of timestamptz NOT NULL,
  rate_source text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  order_id text,
  created_at timestamptz NOT NULL
);
CREATE INDEX paylink_rate_locks_by_expiry ON paylink_rate_locks (expires_at);

-- Views of the hosted page per day, spread over 8 rows so a link shared widely has no hot row; the
-- stats sum them.
CREATE TABLE paylink_view_counts (
  paylink_id text NOT NULL REFERENCES paylinks(id) ON DELETE CASCADE,
  day date NOT NULL,
  shard smallint NOT NULL CHECK (shard BETWEEN 0 AND 7),
  views bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (paylink_id, day, shard)
);
