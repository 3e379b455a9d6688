-- Sweeps move credited USDT from deposit addresses into the hot wallet, one address at a time, through
-- a fixed sequence of chain transactions (see domain/treasury/sweep.ts). Each step's signed bytes are
-- kept before broadcast so a crash re-sends them, and the next step starts only once it is in a block.
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS accounts_currency_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_currency_check CHECK (currency IN ('USDT_TRC20', 'XOF', 'TRX'));
-- TRX the gateway spends on the chain: TREASURY (the hot wallet's TRX) pays, NETWORK_COSTS records it.
INSERT INTO accounts (id, merchant_id, is_sandbox, kind, currency, rail)
SELECT 'acc_' || lower(k.kind) || '_' || (CASE WHEN m.sandbox THEN 'test' ELSE 'live' END) || '_trx',
       NULL, m.sandbox, k.kind, 'TRX', 'TRC20'
FROM (VALUES ('TREASURY'), ('NETWORK_COSTS')) AS k(kind)
CROSS JOIN (VALUES (false), (true)) AS m(sandbox)
ON CONFLICT DO NOTHING;

CREATE TABLE sweeps (
  id text PRIMARY KEY,
  address text NOT NULL,
  account_index integer NOT NULL,
  derivation_index integer NOT NULL,
  -- USDT base units the node reported on the address when the sweep was planned.
  units numeric NOT NULL CHECK (units > 0),
  -- DELEGATE: lend staked energy, take it back after; TOPUP: send TRX for the fee (the fallback).
  method text NOT NULL CHECK (method IN ('DELEGATE', 'TOPUP')),
  steps text[] NOT NULL,
  step integer NOT NULL DEFAULT 0,
  status text NOT NULL CHECK (status IN ('RUNNING', 'DONE', 'FAILED')),
  -- The current step's signed transaction (kept before broadcast) and when it stops being valid.
  step_tx_id text,
  step_signed text,
  step_expiration timestamptz,
  delegated_sun numeric NOT NULL DEFAULT 0,
  trx_spent_sun numeric NOT NULL DEFAULT 0,
  tx_ids text[] NOT NULL DEFAULT '{}',
  failure_reason text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  finished_at timestamptz
);
CREATE UNIQUE INDEX one_running_sweep_per_address ON sweeps (address) WHERE status = 'RUNNING';
CREATE INDEX sweeps_running ON sweeps (created_at) WHERE status = 'RUNNING';
