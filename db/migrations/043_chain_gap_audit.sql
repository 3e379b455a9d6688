-- The gap audit (domain/payins/gap_audit.ts): how far the blocks the scanner recorded were checked
-- against the chain. Followed blocks are pruned only once audited, so an audit that fell behind (nodes
-- down) still finds every block it has not checked.
CREATE TABLE chain_audit (
  network text PRIMARY KEY,
  audited_through bigint NOT NULL,
  holes_rescanned bigint NOT NULL DEFAULT 0,
  mismatches bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);
