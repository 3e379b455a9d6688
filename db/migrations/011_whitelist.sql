-- Saved crypto recipients (the address whitelist). Entries are never deleted: the specification makes
-- removal impossible (ADDRESS_REMOVAL_DISABLED), so a compromised key cannot erase the audit trail.
CREATE TABLE whitelist_entries (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  currency text NOT NULL CHECK (currency = 'USDT_TRC20'),
  chain text NOT NULL CHECK (chain = 'TRON'),
  address text NOT NULL,
  label text,
  usage_contexts text[] NOT NULL
    CHECK (cardinality(usage_contexts) > 0 AND usage_contexts <@ ARRAY['PAYOUT', 'WITHDRAWAL']::text[]),
  -- How the entry was added: API-key withdrawals skip the cooldown, dashboard-session ones keep it.
  added_via text NOT NULL CHECK (added_via IN ('API_KEY', 'DASHBOARD')),
  available_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT whitelist_entry_unique UNIQUE (merchant_id, is_sandbox, chain, address)
);

CREATE INDEX whitelist_entries_newest ON whitelist_entries (merchant_id, is_sandbox, created_at DESC, id DESC);
