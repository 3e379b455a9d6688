-- Issue 24, healthy catch-up speed: a scanner transaction moves up to a thousand pay-ins of one merchant
-- and day to CONFIRMING at once, and the roll-up's statement trigger (054) wrote two deltas for each (the
-- old status's count taken away, the new one's added): two thousand rows that the fold (db/analytics.ts)
-- only ever sums by key. The trigger now sums them by that key itself and writes one delta per key that
-- moves something: the same totals, two rows instead of two thousand. Nested loops stay off (057).
CREATE OR REPLACE FUNCTION payin_daily_follow() RETURNS trigger LANGUAGE plpgsql
SET enable_nestloop = off AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO payin_daily_deltas (merchant_id, is_sandbox, kind, day, currency, status, count, volume, fees)
    SELECT d.merchant_id, d.is_sandbox, d.kind, d.day, d.currency, d.status, sum(d.count), sum(d.volume),
           sum(d.fees)
      FROM (
        SELECT n.merchant_id, n.is_sandbox, 'CREATED' AS kind, (n.created_at AT TIME ZONE 'UTC')::date AS day,
               n.currency, n.status, 1 AS count, 0::numeric AS volume, 0::numeric AS fees
          FROM new_rows n
        UNION ALL
        SELECT n.merchant_id, n.is_sandbox, 'SETTLED', (n.confirmed_at AT TIME ZONE 'UTC')::date, n.currency, '',
               1, n.amount_received, n.service_fee + n.network_fee
          FROM new_rows n WHERE n.confirmed_at IS NOT NULL
      ) d
     GROUP BY 1, 2, 3, 4, 5, 6;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO payin_daily_deltas (merchant_id, is_sandbox, kind, day, currency, status, count, volume, fees)
    SELECT d.merchant_id, d.is_sandbox, d.kind, d.day, d.currency, d.status, sum(d.count), sum(d.volume),
           sum(d.fees)
      FROM (
        SELECT o.merchant_id, o.is_sandbox, 'CREATED' AS kind, (o.created_at AT TIME ZONE 'UTC')::date AS day,
               o.currency, o.status, -1 AS count, 0::numeric AS volume, 0::numeric AS fees
          FROM old_rows o
        UNION ALL
        SELECT o.merchant_id, o.is_sandbox, 'SETTLED', (o.confirmed_at AT TIME ZONE 'UTC')::date, o.currency, '',
               -1, -o.amount_received, -(o.service_fee + o.network_fee)
          FROM old_rows o WHERE o.confirmed_at IS NOT NULL
      ) d
     GROUP BY 1, 2, 3, 4, 5, 6;
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
    SELECT d.merchant_id, d.is_sandbox, d.kind, d.day, d.currency, d.status, sum(d.count), sum(d.volume),
           sum(d.fees)
      FROM (
        SELECT o_merchant_id AS merchant_id, o_is_sandbox AS is_sandbox, 'CREATED' AS kind,
               (o_created_at AT TIME ZONE 'UTC')::date AS day, o_currency AS currency, o_status AS status,
               -1 AS count, 0::numeric AS volume, 0::numeric AS fees
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
          FROM moved WHERE settled_moved AND confirmed_at IS NOT NULL
      ) d
     GROUP BY 1, 2, 3, 4, 5, 6
    -- Moves that cancel out within the statement (one pay-in leaving a status another reaches) write nothing.
    HAVING sum(d.count) <> 0 OR sum(d.volume) <> 0 OR sum(d.fees) <> 0;
  END IF;
  RETURN NULL;
END $$;
