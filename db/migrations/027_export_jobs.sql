-- Export jobs (issue 21): a file built in the background from pages of rows, kept as numbered chunks.
-- The job row holds its state and the keyset position of the last row written; each chunk commits with
-- the job's new position, so a runner that dies loses at most the page it was writing, and the next one
-- (a queue message, or the cron sweep once the lease has run out) goes on from there without writing a
-- row twice. `kind` names the file's form: TRANSACTIONS_CSV today, others (a balance statement) later.
CREATE TABLE export_jobs (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  kind text NOT NULL,
  -- What the kind was asked (period bounds as given and as resolved); params_key is kind + canonical
  -- params, so identical requests while one is open share it.
  params jsonb NOT NULL,
  params_key text NOT NULL,
  status text NOT NULL CHECK (status IN ('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'EXPIRED')),
  cursor jsonb,
  rows_written bigint NOT NULL DEFAULT 0,
  bytes_written bigint NOT NULL DEFAULT 0,
  chunk_count integer NOT NULL DEFAULT 0,
  -- Runs that ended without finishing or handing over (an error, a process that died holding the lease).
  failures integer NOT NULL DEFAULT 0,
  last_error text,
  lease_token text,
  lease_until timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  started_at timestamptz,
  completed_at timestamptz,
  expires_at timestamptz
);
CREATE UNIQUE INDEX export_jobs_one_open ON export_jobs (merchant_id, is_sandbox, params_key)
  WHERE status IN ('QUEUED', 'RUNNING');
CREATE INDEX export_jobs_open ON export_jobs (lease_until NULLS FIRST) WHERE status IN ('QUEUED', 'RUNNING');
CREATE INDEX export_jobs_expiring ON export_jobs (expires_at) WHERE status IN ('COMPLETED', 'FAILED');
CREATE INDEX export_jobs_by_merchant ON export_jobs (merchant_id, is_sandbox, created_at DESC);

-- Export forms are text (CSV): a chunk is sent and stored as text, with no bytea hex encoding on the way.
CREATE TABLE export_chunks (
  job_id text NOT NULL REFERENCES export_jobs(id) ON DELETE CASCADE,
  seq integer NOT NULL,
  rows integer NOT NULL,
  body text NOT NULL,
  PRIMARY KEY (job_id, seq)
);
