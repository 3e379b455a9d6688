-- Four eyes (issue 22): above a configured amount, approving a payout or withdrawal takes two different
-- reviewers. The first approval is a decision of its own (the item keeps waiting); `actor` is who gave a
-- decision ("token" for ADMIN_TOKEN, "cli", or an operator's id): the second approver must differ from
-- the first by it, never by the free-text `operator` name.
ALTER TABLE review_decisions ADD COLUMN actor text;
ALTER TABLE review_decisions DROP CONSTRAINT IF EXISTS review_decisions_decision_check;
ALTER TABLE review_decisions ADD CONSTRAINT review_decisions_decision_check
  CHECK (decision IN ('FIRST_APPROVAL', 'APPROVE', 'REJECT', 'CANCEL'));
