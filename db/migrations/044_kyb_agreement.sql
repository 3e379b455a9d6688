-- KYB reviews with their documents and question threads, and the versioned merchant agreement.
-- merchants.kyb_status stays the one gate the money paths read; kyb_reviews holds what the merchant sent.

-- The merchant agreement: each published version is immutable; its SHA-256 is what a merchant signs.
CREATE TABLE merchant_agreements (
  version int PRIMARY KEY,
  body text NOT NULL,
  sha256 text NOT NULL,
  published_at timestamptz NOT NULL,
  published_by text NOT NULL
);
-- Version 1 exists from the first migration so a merchant always has something to sign.
INSERT INTO merchant_agreements (version, body, sha256, published_at, published_by) VALUES (
  1,
  'Merchant agreement, version 1. The merchant accepts the gateway''s terms of service, fee schedule and acceptable use policy, keeps its business details true and current, and answers compliance questions within 30 days.',
  encode(sha256(convert_to('Merchant agreement, version 1. The merchant accepts the gateway''s terms of service, fee schedule and acceptable use policy, keeps its business details true and current, and answers compliance questions within 30 days.', 'UTF8')), 'hex'),
  '2026-01-01T00:00:00Z',
  'migration'
);

-- Who signed which version, when, from which address, with which key (or "operator"/"fixture" names).
CREATE TABLE agreement_signatures (
  merchant_id text NOT NULL REFERENCES merchants(id),
  version int NOT NULL REFERENCES merchant_agreements(version),
  sha256 text NOT NULL,
  signed_at timestamptz NOT NULL,
  signed_from text NOT NULL,
  signed_by text NOT NULL,
  PRIMARY KEY (merchant_id, version)
);

-- What the key lookup reads: the newest version signed, and the end of the re-sign window when a newer
-- version waits (null: nothing waits). Kept here so the hot path needs no join.
ALTER TABLE merchants ADD COLUMN agreement_version int;
ALTER TABLE merchants ADD COLUMN agreement_resign_by timestamptz;

CREATE TABLE kyb_reviews (
  merchant_id text PRIMARY KEY REFERENCES merchants(id),
  status text NOT NULL DEFAULT 'DRAFT' CHECK (status IN ('DRAFT', 'SUBMITTED', 'APPROVED', 'REJECTED')),
  business jsonb NOT NULL DEFAULT '{}'::jsonb,
  submitted_at timestamptz,
  decided_at timestamptz,
  decided_by text,
  decision_note text,
  updated_at timestamptz NOT NULL
);
CREATE INDEX kyb_reviews_status ON kyb_reviews (status, submitted_at);

CREATE TABLE kyb_documents (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  kind text NOT NULL,
  file_name text NOT NULL,
  content_type text NOT NULL,
  object_key text NOT NULL,
  size_bytes int NOT NULL,
  uploaded_at timestamptz NOT NULL
);
CREATE INDEX kyb_documents_merchant ON kyb_documents (merchant_id, uploaded_at);

CREATE TABLE kyb_threads (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  status text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'RESOLVED', 'DISMISSED')),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  closed_at timestamptz,
  closed_by text
);
CREATE INDEX kyb_threads_merchant ON kyb_threads (merchant_id, created_at);

CREATE TABLE kyb_messages (
  id text PRIMARY KEY,
  thread_id text NOT NULL REFERENCES kyb_threads(id),
  author text NOT NULL CHECK (author IN ('MERCHANT', 'ADMIN')),
  author_name text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX kyb_messages_thread ON kyb_messages (thread_id, created_at);

-- Merchants already APPROVED when this migration runs are recorded as having signed version 1, so an
-- upgrade stops nobody's live money; publishing version 2 then asks each to sign within 30 days.
INSERT INTO agreement_signatures (merchant_id, version, sha256, signed_at, signed_from, signed_by)
SELECT id, 1, (SELECT sha256 FROM merchant_agreements WHERE version = 1), now(), 'migration',
       'recorded by migration 044: approved before the agreement existed'
  FROM merchants WHERE kyb_status = 'APPROVED';
UPDATE merchants SET agreement_version = 1 WHERE kyb_status = 'APPROVED';
