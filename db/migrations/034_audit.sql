-- The audit trail (issue 22): one record per operator action (and per ADMIN_TOKEN call that changes
-- something), appended in the action's own transaction. Records are hash-chained: each `hash` is the
-- SHA-256 of the record's canonical JSON, which includes the previous record's hash, and appends are
-- serialized by a transaction advisory lock so the chain is one line. Nothing updates or deletes them:
-- the trigger refuses it, and `deno task cli audit verify` finds any change made around it.
CREATE TABLE audit_records (
  seq bigint PRIMARY KEY,
  at timestamptz NOT NULL,
  actor_kind text NOT NULL CHECK (actor_kind IN ('token', 'operator', 'cli')),
  actor_id text NOT NULL,
  actor_label text NOT NULL,
  role text NOT NULL,
  client_address text NOT NULL,
  action text NOT NULL,
  item_type text,
  item_id text,
  note text,
  before jsonb,
  after jsonb,
  prev_hash text NOT NULL,
  hash text NOT NULL UNIQUE
);
CREATE INDEX audit_records_by_item ON audit_records (item_id, seq) WHERE item_id IS NOT NULL;
CREATE INDEX audit_records_by_time ON audit_records (at, seq);

CREATE FUNCTION audit_records_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit records are append-only';
END;
$$;
CREATE TRIGGER audit_records_append_only BEFORE UPDATE OR DELETE ON audit_records
  FOR EACH ROW EXECUTE FUNCTION audit_records_append_only();
