-- A TRON node's request budget shared by every host on this database (issue 24): one row per node (its
-- url and a hash of its API key, never the key) and window of the database's clock. Hosts lease tokens
-- in small blocks by adding to `taken` (which may pass the window's cap: a lease past it is granted
-- nothing); `holders` names the processes that leased in the window, so a host that loses the database
-- knows how many share the node and falls back to its own share. Rows older than a minute are purged.
CREATE TABLE tron_node_budget (
  node text NOT NULL,
  -- The window's start, in milliseconds since the epoch by the database's clock.
  window_start_ms bigint NOT NULL,
  taken bigint NOT NULL,
  holders text[] NOT NULL,
  PRIMARY KEY (node, window_start_ms)
);

-- A payout's transactions replaced after TAPOS_ERROR refusals are counted (domain/money_out/send.ts caps
-- them): an item's superseded transactions, found by its id.
CREATE INDEX chain_outgoing_superseded ON chain_outgoing (outbound_id) WHERE superseded;
