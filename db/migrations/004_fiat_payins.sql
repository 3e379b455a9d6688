-- Card and mobile money pay-ins: how they were priced, the customer's next step, and the provider
-- notifications already processed (a replayed callback is refused).

ALTER TABLE payins ADD COLUMN next_step text CHECK (next_step IN ('otp', 'approval', 'redirect'));
ALTER TABLE payins ADD COLUMN hosted_payment_url text;
ALTER TABLE payins ADD COLUMN pricing_currency text;
ALTER TABLE payins ADD COLUMN pricing_amount numeric;
ALTER TABLE payins ADD COLUMN fx_rate numeric;
CREATE UNIQUE INDEX payins_provider_ref ON payins (payment_method, provider_ref) WHERE provider_ref IS NOT NULL;
CREATE INDEX payins_fiat_open ON payins (created_at) WHERE status = 'AWAITING_PAYMENT' AND payment_method <> 'USDT_TRC20';

CREATE TABLE provider_notifications (
  provider text NOT NULL,
  notification_id text NOT NULL,
  payin_id text REFERENCES payins(id) ON DELETE CASCADE,
  status text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, notification_id)
);
