-- USDT refunds (issue 23): the customer gives a TRON address on a signed hosted page, and the refund is paid
-- from the hot wallet by the money-out sender as an outbound_transfers row of kind REFUND. That row carries
-- no journal of its own: the refund's reservation already holds the money in IN_FLIGHT, and the refund's
-- finishers (refund:<id>:paid / :return) book its end when the sender settles or releases the row.
ALTER TABLE outbound_transfers DROP CONSTRAINT IF EXISTS outbound_transfers_kind_check;
ALTER TABLE outbound_transfers ADD CONSTRAINT outbound_transfers_kind_check
  CHECK (kind IN ('PAYOUT', 'WITHDRAWAL', 'REFUND'));

-- The address the customer gave (set once), when, and the outbound transfer paying it.
ALTER TABLE refunds ADD COLUMN destination_address text;
ALTER TABLE refunds ADD COLUMN address_set_at timestamptz;
ALTER TABLE refunds ADD COLUMN outbound_id text REFERENCES outbound_transfers(id);
-- The signed hosted page the merchant sends the customer, made at approval, and when its link expires.
ALTER TABLE refunds ADD COLUMN customer_page_url text;
ALTER TABLE refunds ADD COLUMN customer_page_expires_at timestamptz;
-- One outbound transfer per refund, whatever races.
CREATE UNIQUE INDEX refunds_outbound ON refunds (outbound_id) WHERE outbound_id IS NOT NULL;

-- The transfer paying a refund is not a row of its own in the history: the refund stands for it.
CREATE OR REPLACE FUNCTION transactions_follow_outbound() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM transactions WHERE id = OLD.id;
    RETURN NULL;
  END IF;
  IF NEW.bulk_item_id IS NOT NULL OR NEW.kind = 'REFUND' THEN
    RETURN NULL;
  END IF;
  PERFORM transactions_put(ROW(NEW.id, NEW.merchant_id, NEW.is_sandbox, NEW.kind, NEW.status,
    CASE WHEN NEW.currency = 'USDT_TRC20' THEN 'USDT_TRC20'
         WHEN NEW.fiat_channel = 'BANK' THEN 'BANK' ELSE 'MOBILE_MONEY' END,
    NEW.wallet_rail, NEW.currency, NEW.amount, NULL, NEW.fee, NEW.currency, NEW.net_amount, NULL, NULL, NULL,
    NEW.external_ref, NULL, NULL, NULL, NULL, NEW.destination_address, transaction_note(NEW.metadata), NEW.tx_hash,
    NULL, NEW.failure_reason, transaction_search_text(NEW.external_ref, transaction_note(NEW.metadata)),
    date_trunc('milliseconds', NEW.created_at), date_trunc('milliseconds', NEW.updated_at))::transactions);
  RETURN NULL;
END $$;

-- The same rule in the view the projection is checked against.
CREATE OR REPLACE VIEW transaction_rows_outbound
  (id, merchant_id, is_sandbox, type, status, payment_method, wallet_rail, currency, amount, amount_received,
  fee, fee_currency, net_amount, to_currency, to_wallet_rail, to_amount, external_ref, customer_name, customer_email,
  customer_phone, recipient_name, destination, note, tx_hash, batch_id, failure_reason, search_text, created_at,
  updated_at) AS
SELECT o.id, o.merchant_id, o.is_sandbox, o.kind AS type, o.status,
       CASE WHEN o.currency = 'USDT_TRC20' THEN 'USDT_TRC20'
            WHEN o.fiat_channel = 'BANK' THEN 'BANK' ELSE 'MOBILE_MONEY' END AS payment_method,
       o.wallet_rail, o.currency, o.amount, NULL::numeric AS amount_received, o.fee, o.currency AS fee_currency,
       o.net_amount, NULL::text, NULL::text, NULL::numeric,
       o.external_ref, NULL::text, NULL::text, NULL::text, NULL::text,
       o.destination_address, transaction_note(o.metadata), o.tx_hash, NULL::text, o.failure_reason,
       transaction_search_text(o.external_ref, transaction_note(o.metadata)),
       date_trunc('milliseconds', o.created_at), date_trunc('milliseconds', o.updated_at)
  FROM outbound_transfers o
 WHERE o.bulk_item_id IS NULL AND o.kind <> 'REFUND';

-- Refunds (every rail) are rows of the transaction history, type REFUND, kept by a trigger like the others.
-- The refund's own fields, with its pay-in's reference and customer so a search for them finds it too.
ALTER TABLE transactions DROP CONSTRAINT transactions_type_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_type_check
  CHECK (type IN ('PAYIN', 'PAYOUT', 'WITHDRAWAL', 'CONVERSION', 'BULK_ITEM', 'DEPOSIT', 'REFUND'));

CREATE VIEW transaction_rows_refunds
  (id, merchant_id, is_sandbox, type, status, payment_method, wallet_rail, currency, amount, amount_received,
  fee, fee_currency, net_amount, to_currency, to_wallet_rail, to_amount, external_ref, customer_name, customer_email,
  customer_phone, recipient_name, destination, note, tx_hash, batch_id, failure_reason, search_text, created_at,
  updated_at) AS
SELECT r.id, r.merchant_id, r.is_sandbox, 'REFUND'::text, r.status, r.payment_method, r.wallet_rail, r.currency,
       r.amount, NULL::numeric, 0::numeric, r.currency, r.amount, NULL::text, NULL::text, NULL::numeric,
       p.external_ref, p.customer_name, p.customer_email, p.customer_phone, NULL::text,
       r.destination_address, r.reason, CASE WHEN r.payment_method = 'USDT_TRC20' THEN r.provider_ref END,
       NULL::text, r.failure_reason,
       transaction_search_text(p.customer_email, p.customer_name, p.customer_phone, p.external_ref, r.reason),
       date_trunc('milliseconds', r.created_at), date_trunc('milliseconds', r.updated_at)
  FROM refunds r
  JOIN payins p ON p.id = r.payin_id;

CREATE OR REPLACE VIEW transaction_rows AS
SELECT * FROM transaction_rows_payins
UNION ALL SELECT * FROM transaction_rows_outbound
UNION ALL SELECT * FROM transaction_rows_conversions
UNION ALL SELECT * FROM transaction_rows_bulk_items
UNION ALL SELECT * FROM transaction_rows_deposits
UNION ALL SELECT * FROM transaction_rows_refunds;

-- A refund changes rarely: the row is read through the view itself, keyed on the refund.
CREATE FUNCTION transactions_follow_refunds() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  t transactions;
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM transactions WHERE id = OLD.id;
    RETURN NULL;
  END IF;
  SELECT * INTO t FROM transaction_rows_refunds WHERE id = NEW.id;
  IF FOUND THEN PERFORM transactions_put(t); END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER refunds_transactions AFTER INSERT OR UPDATE OR DELETE ON refunds
  FOR EACH ROW EXECUTE FUNCTION transactions_follow_refunds();

-- The refunds that existed before this migration.
INSERT INTO transactions SELECT * FROM transaction_rows_refunds ON CONFLICT (id) DO NOTHING;
