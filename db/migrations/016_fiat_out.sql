-- XOF out: the merchant's fiat destinations (mobile money numbers, bank accounts), XOF withdrawals in
-- the shared outbound table, and one disbursement row per XOF sent through a provider (withdrawals and
-- bulk items alike), so "sent once" is decided in one place.

CREATE TABLE fiat_destinations (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  kind text NOT NULL CHECK (kind IN ('MOMO', 'BANK')),
  label text,
  is_primary boolean NOT NULL DEFAULT false,
  momo_operator text,
  momo_phone text,
  bank_name text,
  bank_account_name text,
  bank_iban text,
  bank_account_number text,
  bank_code text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- 24 hours after registration (or after the payment details last changed): first use not before.
  available_at timestamptz NOT NULL,
  -- Soft delete: withdrawals already accepted keep a copy of the details they pay to.
  deleted_at timestamptz,
  CHECK (kind <> 'MOMO' OR (momo_operator IS NOT NULL AND momo_phone IS NOT NULL)),
  CHECK (kind <> 'BANK' OR (bank_name IS NOT NULL AND bank_account_name IS NOT NULL
    AND (bank_iban IS NOT NULL OR (bank_account_number IS NOT NULL AND bank_code IS NOT NULL))))
);
CREATE INDEX fiat_destinations_by_merchant ON fiat_destinations (merchant_id, is_sandbox, created_at DESC, id DESC)
  WHERE deleted_at IS NULL;
-- Exactly one primary per merchant and mode (the application keeps one; this makes two impossible).
CREATE UNIQUE INDEX fiat_destinations_one_primary ON fiat_destinations (merchant_id, is_sandbox)
  WHERE is_primary AND deleted_at IS NULL;

-- XOF withdrawals live beside USDT ones: which wallet (rail) they leave, where they go, the provider's ref.
ALTER TABLE outbound_transfers ADD COLUMN wallet_rail text NOT NULL DEFAULT 'TRC20'
  CHECK (wallet_rail IN ('TRC20', 'MOMO', 'CARD'));
ALTER TABLE outbound_transfers ADD COLUMN fiat_destination_id text REFERENCES fiat_destinations(id);
ALTER TABLE outbound_transfers ADD COLUMN fiat_channel text CHECK (fiat_channel IN ('MOMO', 'BANK'));
ALTER TABLE outbound_transfers ADD COLUMN provider_ref text;
DROP INDEX IF EXISTS outbound_in_progress;
CREATE INDEX outbound_in_progress ON outbound_transfers (updated_at)
  WHERE status IN ('PROCESSING', 'APPROVED', 'BROADCAST') AND currency = 'USDT_TRC20';

-- One XOF disbursement: written in its owner's transaction, sent by the fiat.disburse job exactly once
-- (the reference is the provider's idempotency key), finished once by the owner's finisher.
CREATE TABLE fiat_disbursements (
  id text PRIMARY KEY,
  reference text NOT NULL UNIQUE,
  owner_kind text NOT NULL CHECK (owner_kind IN ('WITHDRAWAL', 'BULK_ITEM')),
  owner_id text NOT NULL,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  channel text NOT NULL CHECK (channel IN ('MOMO', 'BANK')),
  amount numeric NOT NULL CHECK (amount > 0 AND amount = trunc(amount)),
  destination jsonb NOT NULL,
  -- QUEUED: written, not sent; SENDING: handed to the provider, answer not recorded yet (a crash here is
  -- resolved by asking the provider by reference); PENDING: the provider accepted, outcome to come;
  -- AWAITING_OPERATOR: a bank transfer a person makes; SUCCEEDED / FAILED: final, finisher ran.
  status text NOT NULL CHECK (status IN ('QUEUED', 'SENDING', 'PENDING', 'AWAITING_OPERATOR', 'SUCCEEDED', 'FAILED')),
  provider text,
  provider_ref text,
  failure_reason text,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  sent_at timestamptz,
  finished_at timestamptz
);
-- Not unique: a bulk item retried after a failure gets a new disbursement with a new reference.
CREATE INDEX fiat_disbursements_owner ON fiat_disbursements (owner_kind, owner_id);
CREATE INDEX fiat_disbursements_open ON fiat_disbursements (updated_at)
  WHERE status IN ('QUEUED', 'SENDING', 'PENDING');
