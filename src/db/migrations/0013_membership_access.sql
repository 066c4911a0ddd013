-- A company admin ends a person's access to the company without touching their other companies:
-- the membership is disabled (kept, so it can be enabled again and the audit log still names it).
ALTER TABLE memberships ADD COLUMN disabled_at timestamptz;
