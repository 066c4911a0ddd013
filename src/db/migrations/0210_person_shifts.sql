-- Shifts belong to a person at a box (issue 29). A box keeps at most one open shift (one drawer),
-- and that shift is its opener's: a person sells and moves cash only in their own shift; a
-- handover closes one person's shift with its count and opens the next person's. Shifts opened by
-- an API token or the command line (and those from before this migration) have no person.
ALTER TABLE box_sessions ADD COLUMN user_id integer REFERENCES users (id) ON DELETE SET NULL;
ALTER TABLE box_sessions ADD COLUMN closed_by_user_id integer REFERENCES users (id) ON DELETE SET NULL;
-- The shift that took over from this one (a handover), and the register's own id for a shift
-- opened without connection (replaying its open answers the same shift).
ALTER TABLE box_sessions ADD COLUMN handed_over_to integer;
ALTER TABLE box_sessions ADD COLUMN client_id uuid;
ALTER TABLE box_sessions ADD COLUMN close_client_id uuid;
CREATE UNIQUE INDEX box_sessions_client ON box_sessions (company_id, client_id) WHERE client_id IS NOT NULL;
CREATE INDEX box_sessions_user_idx ON box_sessions (company_id, user_id, opened_at) WHERE user_id IS NOT NULL;

-- Who made a register sale and a cash move, as a person (null for tokens and the command line).
ALTER TABLE register_sales ADD COLUMN sold_by_user_id integer;
ALTER TABLE box_cash_moves ADD COLUMN created_by_user_id integer;

-- A temporary password (an admin's reset) must be changed at the next sign-in.
ALTER TABLE users ADD COLUMN must_change_password boolean NOT NULL DEFAULT false;
