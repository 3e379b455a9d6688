-- Webhook delivery at volume: the pump claims an endpoint's oldest due deliveries (its backlog, when a
-- per-endpoint slot frees); this index finds them without walking every delivery the endpoint ever had.
CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint_id, next_attempt_at)
  WHERE status = 'PENDING';
