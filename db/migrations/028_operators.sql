-- Operator accounts (issue 22): e-mail, password (scrypt), TOTP with replay refusal, one-time backup
-- codes, failed sign-ins that slow down and lock, and server-side sessions with a CSRF token each.
CREATE TABLE operators (
  id text PRIMARY KEY,
  -- Lower-cased; unique.
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('viewer', 'reviewer', 'admin')),
  -- `$scrypt$ln=..,r=..,p=..$salt$hash` (base64): the parameters travel with the hash.
  password_hash text NOT NULL,
  -- The TOTP secret (base32), sealed with the SecretBox of APP_SECRET.
  totp_secret text NOT NULL,
  -- The 30-second step of the last code accepted: a code of that step or an earlier one is refused.
  last_totp_step bigint,
  failed_attempts integer NOT NULL DEFAULT 0,
  last_failed_at timestamptz,
  locked_until timestamptz,
  disabled_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX operators_email ON operators (email);

-- SHA-256 of each code (80 random bits each, so a plain hash is enough); used once.
CREATE TABLE operator_backup_codes (
  operator_id text NOT NULL REFERENCES operators(id),
  code_hash text NOT NULL,
  used_at timestamptz,
  PRIMARY KEY (operator_id, code_hash)
);

-- The cookie carries a random token; only its SHA-256 is stored.
CREATE TABLE operator_sessions (
  token_hash text PRIMARY KEY,
  id text NOT NULL UNIQUE,
  operator_id text NOT NULL REFERENCES operators(id),
  csrf_token text NOT NULL,
  client_address text NOT NULL,
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  -- The absolute end, whatever the activity.
  expires_at timestamptz NOT NULL,
  ended_at timestamptz
);
CREATE INDEX operator_sessions_live ON operator_sessions (operator_id) WHERE ended_at IS NULL;

