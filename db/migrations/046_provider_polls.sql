-- Live aggregators (issue 26). provider_polls: when the reconciliation job next asks an aggregator about an
-- open pay-in or disbursement (backoff), and a status the gateway does not know, held for an operator.
-- aggregator_references: the aggregator's own handle for one of our references (PayDunya's disburse_token),
-- written before the request that could move money, so a retry after a crash asks about the same one.
CREATE TABLE provider_polls (
  subject_kind TEXT NOT NULL CHECK (subject_kind IN ('PAYIN', 'DISBURSEMENT')),
  subject_id TEXT NOT NULL,
  provider TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_poll_at TIMESTAMPTZ NOT NULL,
  held_status TEXT,
  held_at TIMESTAMPTZ,
  updated_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (subject_kind, subject_id)
);
CREATE INDEX provider_polls_held ON provider_polls (held_at) WHERE held_status IS NOT NULL;

CREATE TABLE aggregator_references (
  provider TEXT NOT NULL,
  reference TEXT NOT NULL,
  provider_ref TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, reference)
);
