-- Rate-limit windows shared by every process (login per account and per client, scanner lookups):
-- one fixed window per key, counted with one upsert, kept across restarts. The key is a hash of the
-- limiter name and its subject (an email or an address is never stored in clear).
CREATE TABLE rate_limit_windows (
  key char(64) PRIMARY KEY,
  window_started_at timestamptz NOT NULL,
  hits integer NOT NULL CHECK (hits > 0),
  expires_at timestamptz NOT NULL
);
CREATE INDEX rate_limit_windows_expires_idx ON rate_limit_windows (expires_at);
