-- People join a company by invitation (issue 25). An admin (or an operator) invites an email with a
-- role; the answer is the same whether or not the email has an account. The link carries a random
-- token shown once: only its SHA-256 is kept. The membership exists only after the person accepts.
-- Ids are random UUIDs: a counter shared by every company would tell one company how many
-- invitations the others send.
CREATE TABLE invitations (
  id uuid PRIMARY KEY,
  company_id integer NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'cashier')),
  token_hash char(64) NOT NULL UNIQUE,
  -- pending → accepted | declined | revoked (by an admin) | replaced (the same email invited again).
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'declined', 'revoked', 'replaced')),
  invited_by integer REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  ended_at timestamptz,
  -- The account that accepted or declined.
  answered_by integer REFERENCES users (id) ON DELETE SET NULL
);
-- One pending invitation per email and company: inviting again replaces it.
CREATE UNIQUE INDEX invitations_pending_email_idx ON invitations (company_id, email) WHERE status = 'pending';
CREATE INDEX invitations_company_idx ON invitations (company_id, created_at);
CREATE INDEX invitations_invited_by_idx ON invitations (invited_by);
CREATE INDEX invitations_answered_by_idx ON invitations (answered_by);
