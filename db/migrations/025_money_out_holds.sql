-- Money out that never strands a payout (issue 18).
-- A payout or withdrawal the hot wallet cannot cover yet says why and since when (shown to the merchant,
-- counted in /metrics, listed in the treasury view); cleared when its transaction is signed.
ALTER TABLE outbound_transfers ADD COLUMN waiting_reason text;
ALTER TABLE outbound_transfers ADD COLUMN waiting_since timestamptz;
CREATE INDEX outbound_waiting ON outbound_transfers (waiting_since) WHERE waiting_reason IS NOT NULL;
-- TRX a sweep stakes for the energy it lends (0: the hot wallet's free stake covers it), so the planner
-- counts what running sweeps will still take from the hot wallet before planning more.
ALTER TABLE sweeps ADD COLUMN stake_sun numeric NOT NULL DEFAULT 0;
-- Signed transactions of outbound items not yet in a block: what they will take from the hot wallet.
CREATE INDEX chain_outgoing_unmined ON chain_outgoing (outbound_id) WHERE block_number IS NULL AND NOT superseded;
-- An operator may cancel an accepted item the hot wallet could not send (its money returns).
ALTER TABLE review_decisions DROP CONSTRAINT IF EXISTS review_decisions_decision_check;
ALTER TABLE review_decisions ADD CONSTRAINT review_decisions_decision_check
  CHECK (decision IN ('APPROVE', 'REJECT', 'CANCEL'));
