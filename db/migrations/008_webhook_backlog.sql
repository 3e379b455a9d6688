-- Webhook delivery at volume: the claim counts each endpoint's leased deliveries (its per-endpoint cap)
-- and reads an endpoint's oldest due deliveries (its backlog); both walk this index instead of every
-- delivery the endpoint ever had.
CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint_id, next_attempt_at, id)
  WHERE status = 'PENDING';
