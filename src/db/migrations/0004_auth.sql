-- People and access: revocable sessions, links to an external identity provider, audit log.

-- One row per login. The session JWT names its row (claim sid); ending the row ends the session
-- at once, whatever the token's own expiry says. Sessions signed by an external identity provider
-- get a row on first use, keyed by the SHA-256 of the token, so they can be ended too.
CREATE TABLE sessions (
  id uuid PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('password', 'external')),
  token_hash char(64) UNIQUE,
  -- The company the user acts for in this session (null: none chosen or no membership).
  company_id integer REFERENCES companies (id) ON DELETE SET NULL,
  ip text,
  user_agent text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  ended_at timestamptz,
  CHECK ((kind = 'external') = (token_hash IS NOT NULL))
);
CREATE INDEX sessions_user_idx ON sessions (user_id) WHERE ended_at IS NULL;
CREATE INDEX sessions_company_idx ON sessions (company_id) WHERE company_id IS NOT NULL;
CREATE INDEX sessions_expires_idx ON sessions (expires_at);

-- Who a subject of the external identity provider is here (linked by email on first sight).
CREATE TABLE user_identities (
  issuer text NOT NULL,
  subject text NOT NULL,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer, subject)
);
CREATE INDEX user_identities_user_idx ON user_identities (user_id);

-- Who did what, when and from where: logins, secret reveals and rotations, account changes.
-- actor_email is copied so the row still reads right after the user changes or is removed.
CREATE TABLE audit_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  actor_user_id integer REFERENCES users (id) ON DELETE SET NULL,
  actor_email text,
  company_id integer REFERENCES companies (id) ON DELETE CASCADE,
  action text NOT NULL,
  ip text,
  user_agent text,
  request_id text,
  details jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX audit_log_company_idx ON audit_log (company_id, id DESC) WHERE company_id IS NOT NULL;
CREATE INDEX audit_log_actor_idx ON audit_log (actor_user_id, id DESC) WHERE actor_user_id IS NOT NULL;
