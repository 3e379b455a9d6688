-- Refunds (issue 23): money back to the customer of a confirmed pay-in, on the rail it came by. The amount
-- leaves the merchant's wallet for IN_FLIGHT when the refund is asked (same transaction as this row and
-- `refund.created`); it goes to WORLD when the rail paid it, back to the wallet on rejection, cancellation
-- or a failed payment (each a journal with its own unique reference, so each happens at most once).
CREATE TABLE refunds (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  payin_id text NOT NULL REFERENCES payins(id),
  payment_method text NOT NULL CHECK (payment_method IN ('USDT_TRC20', 'CARD', 'MOBILE_MONEY')),
  currency text NOT NULL CHECK (currency IN ('USDT_TRC20', 'XOF')),
  -- The wallet the reservation came from (the pay-in's rail).
  wallet_rail text NOT NULL CHECK (wallet_rail IN ('TRC20', 'MOMO', 'CARD')),
  amount numeric NOT NULL CHECK (amount > 0),
  reason text,
  restock boolean NOT NULL DEFAULT false,
  -- PENDING_APPROVAL: waits for an operator; APPROVED: to be paid by the sender; SENDING: handed to the
  -- provider, answer not recorded yet (a crash here is resolved by asking the provider by reference);
  -- PROCESSING: the provider accepted, the outcome comes later; COMPLETED / FAILED / REJECTED / CANCELLED: final.
  status text NOT NULL CHECK (status IN ('PENDING_APPROVAL', 'APPROVED', 'SENDING', 'PROCESSING', 'COMPLETED',
    'FAILED', 'REJECTED', 'CANCELLED')),
  -- The reviewer of the first of two approvals (four eyes), while a second is awaited.
  first_approved_by text,
  reviewer text,
  review_note text,
  auto_approved boolean NOT NULL DEFAULT false,
  provider text,
  provider_ref text,
  failure_reason text,
  -- Mobile money: the disbursement that pays the customer's number.
  disbursement_id text,
  attempts integer NOT NULL DEFAULT 0,
  idempotency_key text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  approved_at timestamptz,
  sent_at timestamptz,
  completed_at timestamptz,
  failed_at timestamptz,
  rejected_at timestamptz,
  cancelled_at timestamptz
);
CREATE INDEX refunds_by_merchant ON refunds (merchant_id, is_sandbox, created_at DESC, id DESC);
CREATE INDEX refunds_by_payin ON refunds (payin_id);
CREATE INDEX refunds_open ON refunds (updated_at) WHERE status IN ('APPROVED', 'SENDING', 'PROCESSING');
CREATE INDEX refunds_pending_approval ON refunds (created_at) WHERE status = 'PENDING_APPROVAL';

-- Below this amount (in the refund's currency) an operator lets a merchant's refunds pass without review.
-- NULL (the default): every refund waits for an operator.
ALTER TABLE merchants ADD COLUMN refund_auto_approve_xof numeric CHECK (refund_auto_approve_xof > 0);
ALTER TABLE merchants ADD COLUMN refund_auto_approve_usdt numeric CHECK (refund_auto_approve_usdt > 0);

-- A mobile money refund is paid through the shared disbursement seam.
ALTER TABLE fiat_disbursements DROP CONSTRAINT IF EXISTS fiat_disbursements_owner_kind_check;
ALTER TABLE fiat_disbursements ADD CONSTRAINT fiat_disbursements_owner_kind_check
  CHECK (owner_kind IN ('WITHDRAWAL', 'BULK_ITEM', 'REFUND'));

-- A paylink order's items go back to stock once, whichever refund asked for it first.
ALTER TABLE paylink_orders ADD COLUMN restocked_at timestamptz;
