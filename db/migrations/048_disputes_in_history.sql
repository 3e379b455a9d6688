-- Disputes in the transaction history (issue 23, reports and views): each dispute is a row of type DISPUTE,
-- id dsp_, amount the disputed amount, status the dispute's own, kept by a trigger on `disputes` in the
-- writer's transaction like refunds (migration 041). Fee 0 and net amount = amount: a dispute moves no fee.
-- Payment method, reference and customer come from the disputed pay-in so a search for them finds it too;
-- the note is the dispute's reason.
ALTER TABLE transactions DROP CONSTRAINT transactions_type_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_type_check
  CHECK (type IN ('PAYIN', 'PAYOUT', 'WITHDRAWAL', 'CONVERSION', 'BULK_ITEM', 'DEPOSIT', 'REFUND', 'DISPUTE'));

CREATE VIEW transaction_rows_disputes
  (id, merchant_id, is_sandbox, type, status, payment_method, wallet_rail, currency, amount, amount_received,
  fee, fee_currency, net_amount, to_currency, to_wallet_rail, to_amount, external_ref, customer_name, customer_email,
  customer_phone, recipient_name, destination, note, tx_hash, batch_id, failure_reason, search_text, created_at,
  updated_at) AS
SELECT d.id, d.merchant_id, d.is_sandbox, 'DISPUTE'::text, d.status, p.payment_method, d.rail, d.currency,
       d.amount, NULL::numeric, 0::numeric, d.currency, d.amount, NULL::text, NULL::text, NULL::numeric,
       p.external_ref, p.customer_name, p.customer_email, p.customer_phone, NULL::text,
       NULL::text, d.reason, NULL::text, NULL::text, NULL::text,
       transaction_search_text(p.customer_email, p.customer_name, p.customer_phone, p.external_ref, d.reason),
       date_trunc('milliseconds', d.created_at), date_trunc('milliseconds', d.updated_at)
  FROM disputes d
  JOIN payins p ON p.id = d.payin_id;

CREATE OR REPLACE VIEW transaction_rows AS
SELECT * FROM transaction_rows_payins
UNION ALL SELECT * FROM transaction_rows_outbound
UNION ALL SELECT * FROM transaction_rows_conversions
UNION ALL SELECT * FROM transaction_rows_bulk_items
UNION ALL SELECT * FROM transaction_rows_deposits
UNION ALL SELECT * FROM transaction_rows_refunds
UNION ALL SELECT * FROM transaction_rows_disputes;

-- A dispute changes rarely: the row is read through the view itself, keyed on the dispute.
CREATE FUNCTION transactions_follow_disputes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  t transactions;
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM transactions WHERE id = OLD.id;
    RETURN NULL;
  END IF;
  SELECT * INTO t FROM transaction_rows_disputes WHERE id = NEW.id;
  IF FOUND THEN PERFORM transactions_put(t); END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER disputes_transactions AFTER INSERT OR UPDATE OR DELETE ON disputes
  FOR EACH ROW EXECUTE FUNCTION transactions_follow_disputes();

-- The disputes that existed before this migration.
INSERT INTO transactions SELECT * FROM transaction_rows_disputes ON CONFLICT (id) DO NOTHING;
