-- Per-merchant plan limits: an operator's overrides of the configured defaults (config.ts, PLAN_*), and
-- the counters that enforce them. A counter row per merchant, mode, metric and period (a UTC day
-- `2026-03-01` or month `2026-03`) is raised in the transaction that moves the money, so a refusal or a
-- rollback undoes it, and its row lock makes concurrent requests take the last unit one at a time.
ALTER TABLE merchants ADD COLUMN plan_limits jsonb NOT NULL DEFAULT '{}'::jsonb;

CREATE TABLE usage_counters (
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  metric text NOT NULL,
  period text NOT NULL,
  used numeric(30, 6) NOT NULL,
  PRIMARY KEY (merchant_id, is_sandbox, metric, period)
);
