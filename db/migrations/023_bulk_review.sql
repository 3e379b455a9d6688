-- Mobile money batches meet the controls of XOF withdrawals (issue 18, item 5): a batch paying any number
-- that is not one of the merchant's fiat destinations past its cooldown is debited at execution but waits
-- in PENDING_REVIEW for an operator, who approves (items queued) or rejects it (REJECTED, money back).
ALTER TABLE bulk_batches DROP CONSTRAINT bulk_batches_status_check;
ALTER TABLE bulk_batches ADD CONSTRAINT bulk_batches_status_check CHECK (status IN (
  'DRAFT', 'VALIDATED', 'PENDING_REVIEW', 'PROCESSING', 'COMPLETED', 'PARTIALLY_COMPLETED', 'REJECTED',
  'CANCELLED'));
-- Why the batch waits (the lines and what is missing), then the operator's decision.
ALTER TABLE bulk_batches ADD COLUMN review_reason text;
ALTER TABLE bulk_batches ADD COLUMN reviewed_by text;
ALTER TABLE bulk_batches ADD COLUMN reviewed_at timestamptz;
ALTER TABLE bulk_batches ADD COLUMN review_note text;
CREATE INDEX bulk_batches_in_review ON bulk_batches (executed_at) WHERE status = 'PENDING_REVIEW';
