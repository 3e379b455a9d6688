-- Issue 24, healthy catch-up speed: the scanner moves a block's 50 pay-ins in one UPDATE, but the history
-- projection (026, `transactions`) and the daily roll-up's deltas (038, `payin_daily_deltas`) followed
-- payins with row triggers: 50 PL/pgSQL calls each, 100 single-row upserts and inserts, most of the
-- UPDATE's time. They now run once per statement over its transition tables, writing the same rows (one
-- projection row per pay-in, one delta per changed measure per pay-in) in one INSERT each.
-- PostgreSQL allows transition tables only on a trigger with one event and no column list, so each
-- concern has three triggers; an UPDATE that touches none of the roll-up's columns writes no delta, as
-- before (the old and new rows are compared, as the row trigger did).

DROP TRIGGER payins_transactions ON payins;
DROP TRIGGER payins_daily ON payins;
DROP FUNCTION transactions_follow_payins();
DROP FUNCTION payin_daily_follow();

-- The projection of `new_rows` (transaction_rows_payins written over the transition table), upserted; a
-- row that would not change is not written (as transactions_put).
CREATE FUNCTION transactions_follow_payins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM transactions t USING old_rows o WHERE t.id = o.id;
    RETURN NULL;
  END IF;
  INSERT INTO transactions
  SELECT p.id, p.merchant_id, p.is_sandbox, 'PAYIN', p.status, p.payment_method,
         CASE p.payment_method WHEN 'USDT_TRC20' THEN 'TRC20' WHEN 'CARD' THEN 'CARD' ELSE 'MOMO' END,
         p.currency, p.amount, p.amount_received, p.service_fee, p.currency, p.net_amount, NULL, NULL, NULL,
         p.external_ref, p.customer_name, p.customer_email, p.customer_phone, NULL, p.address,
         transaction_note(p.metadata), p.tx_hash, NULL, p.failure_reason,
         transaction_search_text(p.customer_email, p.customer_name, p.customer_phone, p.external_ref,
           transaction_note(p.metadata)),
         date_trunc('milliseconds', p.created_at), date_trunc('milliseconds', p.updated_at)
    FROM new_rows p
  ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, payment_method = EXCLUDED.payment_method,
    wallet_rail = EXCLUDED.wallet_rail, currency = EXCLUDED.currency, amount = EXCLUDED.amount,
    amount_received = EXCLUDED.amount_received, fee = EXCLUDED.fee, fee_currency = EXCLUDED.fee_currency,
    net_amount = EXCLUDED.net_amount, to_currency = EXCLUDED.to_currency,
    to_wallet_rail = EXCLUDED.to_wallet_rail, to_amount = EXCLUDED.to_amount,
    external_ref = EXCLUDED.external_ref, customer_name = EXCLUDED.customer_name,
    customer_email = EXCLUDED.customer_email, customer_phone = EXCLUDED.customer_phone,
    recipient_name = EXCLUDED.recipient_name, destination = EXCLUDED.destination, note = EXCLUDED.note,
    tx_hash = EXCLUDED.tx_hash, batch_id = EXCLUDED.batch_id, failure_reason = EXCLUDED.failure_reason,
    search_text = EXCLUDED.search_text, created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at
  WHERE transactions.* IS DISTINCT FROM EXCLUDED.*;
  RETURN NULL;
END $$;

CREATE TRIGGER payins_transactions_insert AFTER INSERT ON payins REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION transactions_follow_payins();
CREATE TRIGGER payins_transactions_update AFTER UPDATE ON payins REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION transactions_follow_payins();
CREATE TRIGGER payins_transactions_delete AFTER DELETE ON payins REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION transactions_follow_payins();

-- The roll-up's deltas (038): the old row's contribution taken away and the new one's added, per measure
-- that moved; an INSERT only adds, a DELETE only takes away.
CREATE FUNCTION payin_daily_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO payin_daily_deltas (merchant_id, is_sandbox, kind, day, currency, status, count, volume, fees)
    SELECT n.merchant_id, n.is_sandbox, 'CREATED', (n.created_at AT TIME ZONE 'UTC')::date, n.currency,
           n.status, 1, 0, 0
      FROM new_rows n
    UNION ALL
    SELECT n.merchant_id, n.is_sandbox, 'SETTLED', (n.confirmed_at AT TIME ZONE 'UTC')::date, n.currency, '',
           1, n.amount_received, n.service_fee + n.network_fee
      FROM new_rows n WHERE n.confirmed_at IS NOT NULL;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO payin_daily_deltas (merchant_id, is_sandbox, kind, day, currency, status, count, volume, fees)
    SELECT o.merchant_id, o.is_sandbox, 'CREATED', (o.created_at AT TIME ZONE 'UTC')::date, o.currency,
           o.status, -1, 0, 0
      FROM old_rows o
    UNION ALL
    SELECT o.merchant_id, o.is_sandbox, 'SETTLED', (o.confirmed_at AT TIME ZONE 'UTC')::date, o.currency, '',
           -1, -o.amount_received, -(o.service_fee + o.network_fee)
      FROM old_rows o WHERE o.confirmed_at IS NOT NULL;
  ELSE
    INSERT INTO payin_daily_deltas (merchant_id, is_sandbox, kind, day, currency, status, count, volume, fees)
    WITH moved AS (
      SELECT o.merchant_id AS o_merchant_id, o.is_sandbox AS o_is_sandbox, o.currency AS o_currency,
             o.status AS o_status, o.created_at AS o_created_at, o.confirmed_at AS o_confirmed_at,
             o.amount_received AS o_amount_received, o.service_fee AS o_service_fee,
             o.network_fee AS o_network_fee,
             n.merchant_id, n.is_sandbox, n.currency, n.status, n.created_at, n.confirmed_at,
             n.amount_received, n.service_fee, n.network_fee,
             (o.merchant_id, o.is_sandbox, o.currency, o.status, o.created_at)
               IS DISTINCT FROM (n.merchant_id, n.is_sandbox, n.currency, n.status, n.created_at)
               AS created_moved,
             (o.merchant_id, o.is_sandbox, o.currency, o.confirmed_at, o.amount_received, o.service_fee,
              o.network_fee)
               IS DISTINCT FROM (n.merchant_id, n.is_sandbox, n.currency, n.confirmed_at, n.amount_received,
                                 n.service_fee, n.network_fee)
               AS settled_moved
        FROM old_rows o JOIN new_rows n ON n.id = o.id
    )
    SELECT o_merchant_id, o_is_sandbox, 'CREATED', (o_created_at AT TIME ZONE 'UTC')::date, o_currency,
           o_status, -1, 0, 0
      FROM moved WHERE created_moved
    UNION ALL
    SELECT o_merchant_id, o_is_sandbox, 'SETTLED', (o_confirmed_at AT TIME ZONE 'UTC')::date, o_currency, '',
           -1, -o_amount_received, -(o_service_fee + o_network_fee)
      FROM moved WHERE settled_moved AND o_confirmed_at IS NOT NULL
    UNION ALL
    SELECT merchant_id, is_sandbox, 'CREATED', (created_at AT TIME ZONE 'UTC')::date, currency, status, 1, 0, 0
      FROM moved WHERE created_moved
    UNION ALL
    SELECT merchant_id, is_sandbox, 'SETTLED', (confirmed_at AT TIME ZONE 'UTC')::date, currency, '', 1,
           amount_received, service_fee + network_fee
      FROM moved WHERE settled_moved AND confirmed_at IS NOT NULL;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER payins_daily_insert AFTER INSERT ON payins REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION payin_daily_follow();
CREATE TRIGGER payins_daily_update AFTER UPDATE ON payins REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION payin_daily_follow();
CREATE TRIGGER payins_daily_delete AFTER DELETE ON payins REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION payin_daily_follow();

-- A block's transfers are inserted 50 at a time and nearly all of them are pay-ins' (kind PAYIN), which
-- the history never shows (038's trigger returned at once for them): the row trigger is now called only
-- for a row that can change the history. A `dep_` row exists only for a CREDITED transfer, so an update
-- that neither leaves nor reaches CREDITED had nothing to delete and nothing to put.
DROP TRIGGER chain_transfers_transactions ON chain_transfers;
CREATE TRIGGER chain_transfers_transactions_insert AFTER INSERT ON chain_transfers
  FOR EACH ROW WHEN (NEW.kind IN ('DEPOSIT', 'DIRECT') AND NEW.status = 'CREDITED')
  EXECUTE FUNCTION transactions_follow_deposits();
CREATE TRIGGER chain_transfers_transactions_update AFTER UPDATE ON chain_transfers
  FOR EACH ROW WHEN (OLD.status = 'CREDITED' OR NEW.status = 'CREDITED')
  EXECUTE FUNCTION transactions_follow_deposits();
CREATE TRIGGER chain_transfers_transactions_delete AFTER DELETE ON chain_transfers
  FOR EACH ROW EXECUTE FUNCTION transactions_follow_deposits();
