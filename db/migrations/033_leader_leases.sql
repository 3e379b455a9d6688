-- Who runs the work only one process should run (the chain scanner's loop, each cron), across hosts that
-- share this database. A lease expires unless renewed; each new holder starts a new term.
CREATE TABLE leader_leases (
  name text PRIMARY KEY,
  holder text NOT NULL,
  term bigint NOT NULL,
  expires_at timestamptz NOT NULL
);
