-- Issue 21: balance statements, PDF statements and invoices, analytics.
-- A merchant's journals by time: the statement reads one period's wallet movements (and the movements
-- since `from`, for the opening balance) without scanning the merchant's whole history.
CREATE INDEX journals_merchant_time ON journals (merchant_id, is_sandbox, created_at);
-- Settled pay-ins by settlement time, with what the volume and fee aggregates read (index-only scans).
CREATE INDEX payins_settled_analytics ON payins (merchant_id, is_sandbox, confirmed_at)
  INCLUDE (currency, status, amount_received, service_fee, network_fee)
  WHERE confirmed_at IS NOT NULL;
-- Pay-ins by creation time with their status: the counts by status of the summary.
CREATE INDEX payins_created_status ON payins (merchant_id, is_sandbox, created_at) INCLUDE (status, currency);
