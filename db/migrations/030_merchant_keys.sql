-- Keys managed by the merchant: a name, an end (a rotated key keeps working until expires_at), when and
-- from where it was last used, which key created it and which key replaced it.
ALTER TABLE api_keys
  ADD COLUMN name text,
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN last_used_at timestamptz,
  ADD COLUMN last_used_from text,
  ADD COLUMN created_by text,
  ADD COLUMN rotated_to text;
-- An operator's per-merchant cap on live (unrevoked, unexpired) keys; null takes MAX_API_KEYS.
ALTER TABLE merchants ADD COLUMN max_api_keys integer CHECK (max_api_keys IS NULL OR max_api_keys > 0);
