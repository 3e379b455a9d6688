-- What a live aggregator (CinetPay, PayDunya) reported about one pay-in or disbursement when it settled
-- (issue 26, item 4): the amount the gateway asked for, the amount the aggregator says was paid, its fee
-- when its answer carries one (NULL: not reported), and the amount it settles (NULL when the fee is not
-- reported, so nobody mistakes "paid" for "settled"). One row per subject, written in the transaction
-- that records the outcome; the first final answer is kept (a replay cannot rewrite it).
CREATE TABLE aggregator_amounts (
  subject_kind TEXT NOT NULL CHECK (subject_kind IN ('PAYIN', 'DISBURSEMENT')),
  subject_id TEXT NOT NULL,
  provider TEXT NOT NULL,
  currency TEXT NOT NULL,
  amount_asked NUMERIC NOT NULL,
  amount_paid NUMERIC,
  fee NUMERIC CHECK (fee IS NULL OR fee >= 0),
  amount_settled NUMERIC,
  recorded_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (subject_kind, subject_id)
);
