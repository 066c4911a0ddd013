-- The company a person chose last (issue 25): after login with several companies they land there,
-- or pick one; never "an admin membership first".
ALTER TABLE users ADD COLUMN last_company_id integer REFERENCES companies (id) ON DELETE SET NULL;
CREATE INDEX users_last_company_idx ON users (last_company_id);
