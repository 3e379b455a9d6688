-- Money out: payouts and withdrawals share one table and one exactly-once path to the chain; each kind
-- keeps its own state table in domain/money_out/states.ts.

-- IN_FLIGHT holds what accepted payouts and withdrawals reserved until they confirm (then it leaves to
-- WORLD and FEES) or fail (then it returns to the wallet). One per mode and rail, like WORLD and FEES.
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS accounts_kind_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_kind_check
  CHECK (kind IN ('WALLET', 'WORLD', 'FEES', 'IN_FLIGHT', 'NETWORK_COSTS', 'TREASURY'));
INSERT INTO accounts (id, merchant_id, is_sandbox, kind, currency, rail)
SELECT 'acc_in_flight_' || (CASE WHEN m.sandbox THEN 'test' ELSE 'live' END) || '_' || lower(p.rail),
       NULL, m.sandbox, 'IN_FLIGHT', p.currency, p.rail
FROM (VALUES (false), (true)) AS m(sandbox)
CROSS JOIN (VALUES ('USDT_TRC20', 'TRC20'), ('XOF', 'MOMO'), ('XOF', 'CARD')) AS p(currency, rail)
ON CONFLICT DO NOTHING;

CREATE TABLE outbound_transfers (
  id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('PAYOUT', 'WITHDRAWAL')),
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  status text NOT NULL,
  currency text NOT NULL,
  chain text NOT NULL,
  -- amount: what the merchant asked for; fee: the platform's; debited: what left the wallet;
  -- net_amount: what the recipient receives (payout: amount; withdrawal: amount - fee).
  amount numeric NOT NULL CHECK (amount > 0),
  fee numeric NOT NULL CHECK (fee >= 0),
  debited numeric NOT NULL CHECK (debited > 0),
  net_amount numeric NOT NULL CHECK (net_amount > 0),
  destination_address text NOT NULL,
  whitelist_entry_id text REFERENCES whitelist_entries(id),
  external_ref text,
  metadata jsonb NOT NULL DEFAULT '{}',
  requires_manual_approval boolean NOT NULL DEFAULT false,
  tx_hash text,
  failure_reason text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  approved_at timestamptz,
  broadcast_at timestamptz,
  confirmed_at timestamptz,
  failed_at timestamptz,
  cancelled_at timestamptz
);
CREATE INDEX outbound_by_merchant ON outbound_transfers (merchant_id, is_sandbox, kind, created_at DESC, id DESC);
CREATE INDEX outbound_in_progress ON outbound_transfers (updated_at)
  WHERE status IN ('PROCESSING', 'APPROVED', 'BROADCAST');
CREATE UNIQUE INDEX outbound_external_ref ON outbound_transfers (merchant_id, is_sandbox, kind, external_ref)
  WHERE external_ref IS NOT NULL;

-- Every operator decision, append-only: who, when, what and why.
CREATE TABLE review_decisions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  outbound_id text NOT NULL REFERENCES outbound_transfers(id),
  decision text NOT NULL CHECK (decision IN ('APPROVE', 'REJECT')),
  operator text NOT NULL,
  note text,
  created_at timestamptz NOT NULL
);
CREATE INDEX review_decisions_by_outbound ON review_decisions (outbound_id, created_at);

-- Signed transactions, stored before their first broadcast so a crash re-sends the same bytes. A
-- transaction is superseded only once its expiration passed without it on chain (then one is re-signed).
CREATE TABLE chain_outgoing (
  tx_id text PRIMARY KEY,
  outbound_id text NOT NULL REFERENCES outbound_transfers(id),
  signed_tx text NOT NULL,
  expiration timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  last_broadcast_at timestamptz,
  broadcast_count integer NOT NULL DEFAULT 0,
  block_number bigint,
  result text,
  superseded boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX chain_outgoing_live ON chain_outgoing (outbound_id) WHERE NOT superseded;
CREATE INDEX chain_outgoing_in_block ON chain_outgoing (block_number) WHERE block_number IS NOT NULL;
