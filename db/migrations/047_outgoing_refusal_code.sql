-- A node's refusal of one of our signed transactions (issue 24). TAPOS_ERROR means the node does not know
-- the reference block (it was signed against a node on a fork): the transaction may still land if that
-- fork wins, so it is left to expire and is replaced then; such refusals do not count towards failing
-- the payout. last_refusal_code is the node's last refusal code (NULL: never refused).
ALTER TABLE chain_outgoing ADD COLUMN last_refusal_code text;
ALTER TABLE chain_outgoing ADD COLUMN tapos_refusals integer NOT NULL DEFAULT 0;
