-- IP allowlists as CIDR text: the merchant's (every key) and a key's own. Empty: every address.
ALTER TABLE merchants ADD COLUMN ip_allowlist text[] NOT NULL DEFAULT '{}';
ALTER TABLE api_keys ADD COLUMN ip_allowlist text[] NOT NULL DEFAULT '{}';
