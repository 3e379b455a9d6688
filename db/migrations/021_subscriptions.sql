-- Recurring paylinks: a subscription starts at the first paid checkout of a RECURRING paylink, and each
-- period a renewal asks the customer to pay again (by e-mail and on a hosted renewal page).

CREATE TABLE subscriptions (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  paylink_id text NOT NULL REFERENCES paylinks(id),
  -- The checkout that started it: one subscription per order, whatever repeats the paid move.
  first_order_id text NOT NULL UNIQUE REFERENCES paylink_orders(id),
  status text NOT NULL CHECK (status IN ('ACTIVE', 'PAST_DUE', 'PAUSED', 'CANCELLED')),
  customer_email text NOT NULL,
  customer_name text,
  customer_phone text,
  -- What each renewal asks, in the paylink's currency; converted to the rail the customer picks.
  currency text NOT NULL CHECK (currency IN ('USDT_TRC20', 'XOF')),
  amount numeric NOT NULL CHECK (amount > 0),
  description text NOT NULL,
  first_rail text CHECK (first_rail IN ('USDT_TRC20', 'CARD', 'MOBILE_MONEY')),
  billing_interval text NOT NULL CHECK (billing_interval IN ('WEEKLY', 'MONTHLY', 'YEARLY')),
  interval_count integer NOT NULL CHECK (interval_count BETWEEN 1 AND 52),
  -- Period k starts at anchor_at + (k - anchor_index) intervals (month ends clamp, from the anchor's day).
  anchor_at timestamptz NOT NULL,
  anchor_index integer NOT NULL CHECK (anchor_index >= 1),
  -- The last period paid for (period 1: the first checkout).
  current_period_index integer NOT NULL CHECK (current_period_index >= 1),
  current_period_start timestamptz NOT NULL,
  current_period_end timestamptz NOT NULL,
  -- The next renewal to start: the claim key is (id, next_period_index) in subscription_renewals.
  next_period_index integer NOT NULL CHECK (next_period_index > current_period_index),
  next_period_start timestamptz NOT NULL,
  paused_at timestamptz,
  cancelled_at timestamptz,
  cancelled_by text CHECK (cancelled_by IN ('MERCHANT', 'CUSTOMER')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX subscriptions_by_merchant ON subscriptions (merchant_id, is_sandbox, created_at DESC, id DESC);
CREATE INDEX subscriptions_due ON subscriptions (next_period_start) WHERE status IN ('ACTIVE', 'PAST_DUE');

CREATE TABLE subscription_renewals (
  id text PRIMARY KEY,
  subscription_id text NOT NULL REFERENCES subscriptions(id),
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  period_index integer NOT NULL CHECK (period_index >= 2),
  period_start timestamptz NOT NULL,
  period_end timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('PENDING', 'PAID', 'FAILED', 'CANCELLED')),
  currency text NOT NULL CHECK (currency IN ('USDT_TRC20', 'XOF')),
  amount numeric NOT NULL CHECK (amount > 0),
  -- Unpaid by then (and no pay-in still running): FAILED.
  grace_until timestamptz NOT NULL,
  -- The pay-in the customer started last from the renewal page (a new one only once it ended unpaid).
  payin_id text UNIQUE REFERENCES payins(id),
  failure_reason text,
  paid_at timestamptz,
  failed_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- Exactly one renewal per subscription and period, whichever process or message claims it first.
  CONSTRAINT one_renewal_per_period UNIQUE (subscription_id, period_index)
);
CREATE INDEX subscription_renewals_open ON subscription_renewals (grace_until) WHERE status = 'PENDING';

-- The mail seam's outbox: a message is written in the transaction of what it reports, then sent by the
-- configured transport (development: nobody; the rows are the outbox an operator and tests read).
CREATE TABLE mail_outbox (
  id text PRIMARY KEY,
  merchant_id text REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  to_address text NOT NULL,
  subject text NOT NULL,
  text_body text NOT NULL,
  html_body text,
  -- What it is about, for operators: e.g. subscription.renewal, subscription.created.
  kind text NOT NULL,
  ref_id text,
  status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SENT', 'FAILED')),
  attempts integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  last_error text,
  sent_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX mail_outbox_pending ON mail_outbox (created_at) WHERE status = 'PENDING';
CREATE INDEX mail_outbox_by_ref ON mail_outbox (ref_id);
