-- Four eyes on bulk batches (issue 22): a batch held for review whose total is above FOUR_EYES_ABOVE_USDT
-- or FOUR_EYES_ABOVE_XOF takes two different reviewers. The first approval is kept on the batch (which
-- stays PENDING_REVIEW); `first_approved_actor` is who gave it ("token", "cli" or an operator's id), what
-- the second approver must differ from, never the free-text name `first_approved_by`.
ALTER TABLE bulk_batches ADD COLUMN first_approved_by text;
ALTER TABLE bulk_batches ADD COLUMN first_approved_actor text;
ALTER TABLE bulk_batches ADD COLUMN first_approved_at timestamptz;
