-- Merchants, keys, ledger, events and webhooks: the ground every rail stands on.

CREATE TABLE merchants (
  id text PRIMARY KEY,
  name text NOT NULL,
  status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'SUSPENDED', 'CLOSED')),
  kyb_status text NOT NULL DEFAULT 'PENDING' CHECK (kyb_status IN ('PENDING', 'APPROVED', 'REJECTED')),
  enabled_rails text[] NOT NULL DEFAULT ARRAY['USDT_TRC20', 'CARD', 'MOBILE_MONEY'],
  fee_schedule jsonb NOT NULL DEFAULT '{}'::jsonb,
  rate_limits jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  kind text NOT NULL CHECK (kind IN ('live_secret', 'live_publishable', 'test_secret', 'test_publishable', 'restricted')),
  is_sandbox boolean NOT NULL,
  display_prefix text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  scopes text[],
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_merchant ON api_keys (merchant_id);

-- Merchant wallets (kind WALLET) and the platform's own accounts (WORLD: money entering or leaving the
-- gateway; FEES: platform revenue). Only wallets must stay non-negative.
CREATE TABLE accounts (
  id text PRIMARY KEY,
  merchant_id text REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  kind text NOT NULL CHECK (kind IN ('WALLET', 'WORLD', 'FEES')),
  currency text NOT NULL CHECK (currency IN ('USDT_TRC20', 'XOF')),
  rail text NOT NULL CHECK (rail IN ('TRC20', 'MOMO', 'CARD')),
  balance numeric NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT wallet_balance_non_negative CHECK (kind <> 'WALLET' OR balance >= 0),
  CONSTRAINT one_account_per_pair UNIQUE NULLS NOT DISTINCT (merchant_id, is_sandbox, kind, currency, rail)
);

INSERT INTO accounts (id, merchant_id, is_sandbox, kind, currency, rail)
SELECT 'acc_' || lower(k.kind) || '_' || (CASE WHEN m.sandbox THEN 'test' ELSE 'live' END) || '_' || lower(p.rail),
       NULL, m.sandbox, k.kind, p.currency, p.rail
FROM (VALUES ('WORLD'), ('FEES')) AS k(kind)
CROSS JOIN (VALUES (false), (true)) AS m(sandbox)
CROSS JOIN (VALUES ('USDT_TRC20', 'TRC20'), ('XOF', 'MOMO'), ('XOF', 'CARD')) AS p(currency, rail);

CREATE TABLE journals (
  id text PRIMARY KEY,
  reference text NOT NULL UNIQUE,
  kind text NOT NULL,
  merchant_id text REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX journals_merchant ON journals (merchant_id, is_sandbox);

CREATE TABLE entries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  journal_id text NOT NULL REFERENCES journals(id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts(id),
  amount numeric NOT NULL CHECK (amount <> 0),
  currency text NOT NULL
);
CREATE INDEX entries_journal ON entries (journal_id);
CREATE INDEX entries_account ON entries (account_id);

CREATE TABLE events (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  is_test boolean NOT NULL DEFAULT false,
  type text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_merchant ON events (merchant_id, is_sandbox, created_at);

CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL,
  max_retries integer NOT NULL DEFAULT 3 CHECK (max_retries BETWEEN 0 AND 10),
  retry_backoff text NOT NULL DEFAULT 'EXPONENTIAL' CHECK (retry_backoff IN ('EXPONENTIAL')),
  retry_interval_seconds integer NOT NULL DEFAULT 60 CHECK (retry_interval_seconds BETWEEN 1 AND 86400),
  secret_encrypted text NOT NULL,
  status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'DISABLED')),
  consecutive_failures integer NOT NULL DEFAULT 0,
  disabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_merchant ON webhook_endpoints (merchant_id, is_sandbox);

-- One row per (event, endpoint): the outbox. `body` holds the exact bytes sent on every attempt.
CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  event_id text NOT NULL REFERENCES events(id) ON DELETE CASCADE,
  endpoint_id text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  event_type text NOT NULL,
  body text NOT NULL,
  status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
  attempt_count integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz,
  last_status_code integer,
  last_error text,
  completed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at);

CREATE TABLE webhook_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id text NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempt_no integer NOT NULL,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status_code integer,
  error text,
  succeeded boolean NOT NULL,
  UNIQUE (delivery_id, attempt_no)
);

CREATE TABLE idempotency_keys (
  merchant_id text NOT NULL REFERENCES merchants(id),
  key text NOT NULL,
  fingerprint text NOT NULL,
  state text NOT NULL CHECK (state IN ('RUNNING', 'DONE')),
  response_status integer,
  response_body text,
  locked_until timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (merchant_id, key)
);

-- Values the gateway generates for itself in development (encrypted secrets, generated mnemonic).
CREATE TABLE app_settings (
  key text PRIMARY KEY,
  value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
