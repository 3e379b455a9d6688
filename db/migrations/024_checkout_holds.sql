-- Checkout holds (issue 18): an unpaid order keeps its stock, promo and paylink uses only until
-- `hold_until` (CHECKOUT_HOLD_MINUTES after the checkout), and it records the client address that placed
-- it, so one address cannot hold more than a small share at once. `oversold`: paid after its hold was
-- released, when the units it had held were no longer all there to take back.
ALTER TABLE paylink_orders ADD COLUMN client_address text;
ALTER TABLE paylink_orders ADD COLUMN hold_until timestamptz;
ALTER TABLE paylink_orders ADD COLUMN oversold boolean NOT NULL DEFAULT false;
-- Orders placed before this migration kept their hold 30 minutes, as they were promised.
UPDATE paylink_orders SET hold_until = created_at + interval '30 minutes' WHERE hold_until IS NULL;
ALTER TABLE paylink_orders ALTER COLUMN hold_until SET NOT NULL;
-- The holds still running (unpaid, not released): few rows, read by every checkout of the paylink and
-- by the release sweep.
CREATE INDEX paylink_orders_holding ON paylink_orders (paylink_id) WHERE released_at IS NULL AND paid_at IS NULL;
CREATE INDEX paylink_orders_hold_end ON paylink_orders (hold_until) WHERE released_at IS NULL AND paid_at IS NULL;

-- Pay-ins paid while their merchant was not ACTIVE (suspended or closed): credited as any pay-in, and
-- listed here for an operator's review. Removed with the pay-in (a sandbox reset).
CREATE TABLE payin_review_holds (
  payin_id text PRIMARY KEY REFERENCES payins(id) ON DELETE CASCADE,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  -- The merchant's status when the money arrived.
  merchant_status text NOT NULL,
  reason text NOT NULL,
  created_at timestamptz NOT NULL,
  reviewed_at timestamptz,
  reviewed_by text,
  review_note text
);
CREATE INDEX payin_review_holds_open ON payin_review_holds (created_at) WHERE reviewed_at IS NULL;
