-- WSAA access tickets (token + sign, 12 hours), one per certificate and service, shared by every
-- process: ARCA refuses a second login while a ticket is valid (coe.alreadyAuthenticated).
CREATE TABLE arca_tickets (
  cert_fingerprint text NOT NULL,
  service text NOT NULL,
  token text NOT NULL,
  sign text NOT NULL,
  generated_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (cert_fingerprint, service)
);
