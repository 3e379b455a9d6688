-- Wallet-to-wallet conversions. Both legs of a conversion are one journal: the merchant's from-wallet
-- pays the platform's FX account of that currency and rail, the FX account of the other currency pays
-- the merchant's to-wallet and the FEES account. FX accounts are platform accounts (balance derived from
-- entries, no hot row); their sum per currency is the platform's exposure from conversions (treasury).
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS accounts_kind_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_kind_check
  CHECK (kind IN ('WALLET', 'WORLD', 'FEES', 'IN_FLIGHT', 'NETWORK_COSTS', 'TREASURY', 'FX'));
INSERT INTO accounts (id, merchant_id, is_sandbox, kind, currency, rail)
SELECT 'acc_fx_' || (CASE WHEN m.sandbox THEN 'test' ELSE 'live' END) || '_' || lower(p.rail),
       NULL, m.sandbox, 'FX', p.currency, p.rail
FROM (VALUES (false), (true)) AS m(sandbox)
CROSS JOIN (VALUES ('USDT_TRC20', 'TRC20'), ('XOF', 'MOMO'), ('XOF', 'CARD')) AS p(currency, rail)
ON CONFLICT DO NOTHING;

CREATE TABLE conversions (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  status text NOT NULL CHECK (status IN ('CONFIRMED', 'FAILED')),
  from_wallet_id text NOT NULL REFERENCES accounts(id),
  to_wallet_id text NOT NULL REFERENCES accounts(id),
  from_currency text NOT NULL,
  from_rail text NOT NULL,
  to_currency text NOT NULL,
  to_rail text NOT NULL,
  from_amount numeric NOT NULL CHECK (from_amount > 0),
  -- One unit of from_currency is worth `rate` units of to_currency, as observed at rate_as_of.
  rate numeric NOT NULL CHECK (rate > 0),
  rate_as_of timestamptz NOT NULL,
  rate_source text NOT NULL,
  to_amount_gross numeric NOT NULL CHECK (to_amount_gross > 0),
  fee_percent numeric NOT NULL CHECK (fee_percent >= 0),
  fee numeric NOT NULL CHECK (fee >= 0),
  to_amount_net numeric NOT NULL CHECK (to_amount_net > 0 AND to_amount_net + fee = to_amount_gross),
  journal_id text REFERENCES journals(id),
  failure_reason text,
  created_at timestamptz NOT NULL,
  confirmed_at timestamptz,
  CHECK (from_currency <> to_currency)
);
CREATE INDEX conversions_by_merchant ON conversions (merchant_id, is_sandbox, created_at DESC, id DESC);
