-- Disputes and chargebacks (issue 23). A dispute holds the disputed amount: it moves from the merchant's
-- wallet to the DISPUTES platform account of its mode and rail (one per mode and rail, like IN_FLIGHT),
-- so the wallet cannot spend it. What the wallet could not cover is the dispute's `shortfall`, taken
-- from its next credits by the `dispute-sweep` job. Every move of the held money is a ledger journal with
-- a unique reference (`dispute:<id>:hold:<n>`, `:release`, `:debit`, `:collect:<n>`).
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS accounts_kind_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_kind_check
  CHECK (kind IN ('WALLET', 'WORLD', 'FEES', 'IN_FLIGHT', 'NETWORK_COSTS', 'TREASURY', 'FX', 'DISPUTES'));
INSERT INTO accounts (id, merchant_id, is_sandbox, kind, currency, rail)
SELECT 'acc_disputes_' || (CASE WHEN m.sandbox THEN 'test' ELSE 'live' END) || '_' || lower(p.rail),
       NULL, m.sandbox, 'DISPUTES', p.currency, p.rail
FROM (VALUES (false), (true)) AS m(sandbox)
CROSS JOIN (VALUES ('USDT_TRC20', 'TRC20'), ('XOF', 'MOMO'), ('XOF', 'CARD')) AS p(currency, rail)
ON CONFLICT DO NOTHING;

CREATE TABLE disputes (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  payin_id text NOT NULL REFERENCES payins(id),
  status text NOT NULL CHECK (status IN ('OPEN', 'UNDER_REVIEW', 'ESCALATED', 'RESOLVED', 'REJECTED')),
  -- Who opened it: the card acquirer's notification, or an operator (mobile money, USDT complaints).
  source text NOT NULL CHECK (source IN ('PROVIDER', 'OPERATOR')),
  -- The acquirer's case id (PROVIDER) or a generated one (OPERATOR): one dispute per case, ever.
  case_ref text NOT NULL,
  reason text NOT NULL,
  card_origin text NOT NULL CHECK (card_origin IN ('LOCAL', 'INTERNATIONAL')),
  currency text NOT NULL,
  rail text NOT NULL CHECK (rail IN ('TRC20', 'MOMO', 'CARD')),
  amount numeric NOT NULL CHECK (amount > 0),
  -- What sits in DISPUTES for this dispute now, and what the wallet still owes (taken from next credits).
  held numeric NOT NULL DEFAULT 0 CHECK (held >= 0),
  shortfall numeric NOT NULL DEFAULT 0 CHECK (shortfall >= 0),
  -- How many hold/collect journals were booked: the next one's reference suffix.
  hold_steps integer NOT NULL DEFAULT 0,
  evidence_due_at timestamptz NOT NULL,
  evidence_text text,
  evidence_submitted_at timestamptz,
  outcome text CHECK (outcome IN ('MERCHANT_WON', 'OPERATOR_REJECTED', 'ACCEPTED', 'DEADLINE_MISSED', 'PROVIDER_LOST', 'PROVIDER_WON')),
  decided_by text,
  decision_note text,
  opened_by text NOT NULL,
  escalated_at timestamptz,
  closed_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT disputes_one_per_case UNIQUE (source, case_ref)
);
CREATE INDEX disputes_merchant ON disputes (merchant_id, is_sandbox, created_at DESC);
CREATE INDEX disputes_payin ON disputes (payin_id);
-- The deadline job's work: open disputes past their due time, and held disputes still owed money.
CREATE INDEX disputes_due ON disputes (evidence_due_at) WHERE status = 'OPEN';
CREATE INDEX disputes_owing ON disputes (merchant_id) WHERE shortfall > 0;
CREATE INDEX disputes_queue ON disputes (created_at) WHERE status IN ('UNDER_REVIEW', 'ESCALATED', 'OPEN');

-- The evidence files: bytes behind the storage seam (content-addressed key), a row per file.
CREATE TABLE dispute_files (
  id text PRIMARY KEY,
  -- Upload order (ids made in the same millisecond do not sort by it).
  seq bigint GENERATED ALWAYS AS IDENTITY,
  dispute_id text NOT NULL REFERENCES disputes(id),
  object_key text NOT NULL,
  content_type text NOT NULL,
  size_bytes integer NOT NULL,
  file_name text NOT NULL,
  created_at timestamptz NOT NULL,
  -- The same bytes sent twice (a retried upload) are one file of the dispute.
  CONSTRAINT dispute_files_once UNIQUE (dispute_id, object_key)
);
CREATE INDEX dispute_files_dispute ON dispute_files (dispute_id, seq);
