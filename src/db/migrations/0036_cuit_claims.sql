-- A company that asked for a CUIT another company already has (issue 25). The company is told only
-- that the CUIT cannot be used (422 cuit_unavailable): which company holds it is a fact about
-- another tenant. The operator sees the claim on the company's page and resolves it (moves the
-- CUIT to the claimer, or dismisses the claim).
CREATE TABLE cuit_claims (
  company_id integer NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  cuit char(11) NOT NULL,
  claimed_at timestamptz NOT NULL,
  claimed_by integer REFERENCES users (id) ON DELETE SET NULL,
  PRIMARY KEY (company_id, cuit)
);
CREATE INDEX cuit_claims_claimed_by_idx ON cuit_claims (claimed_by);
