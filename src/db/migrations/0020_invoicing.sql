-- Electronic invoicing with ARCA (WSFEv1): each company's fiscal setup, its points of sale, every
-- attempt to authorise a receipt (the number reserved before the request leaves), and the fiscal
-- data of the receipts Mostrador issued. Receipts that arrive already issued through
-- `invoice.issued` keep only the contract's columns (source = 'integration').

CREATE TABLE company_fiscal (
  company_id integer PRIMARY KEY REFERENCES companies (id) ON DELETE CASCADE,
  iva_condition text NOT NULL DEFAULT 'responsable_inscripto'
    CHECK (iva_condition IN ('responsable_inscripto', 'monotributo', 'exento')),
  legal_name text,
  address text,
  gross_income text,
  activity_start date,
  -- delegation: the service signs with its own certificate (ARCA_CERT_FILE) on the company's behalf;
  -- own_certificate: the company's certificate and key (the key sealed with SECRET_KEY's cipher).
  auth_mode text NOT NULL DEFAULT 'delegation' CHECK (auth_mode IN ('delegation', 'own_certificate')),
  environment text NOT NULL DEFAULT 'homologacion' CHECK (environment IN ('homologacion', 'produccion')),
  cert_pem text,
  key_sealed text,
  -- A key generated with a CSR in the screen, waiting for the certificate ARCA signs.
  pending_key_sealed text,
  pending_csr_pem text,
  default_point_of_sale integer,
  -- The last "Probar conexión": when, and what it found ({ok, steps:[…]}).
  last_check_at timestamptz,
  last_check jsonb,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Points of sale of type web service the company invoices from.
CREATE TABLE fiscal_points_of_sale (
  company_id integer NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  number integer NOT NULL CHECK (number BETWEEN 1 AND 99998),
  emission_type text,
  blocked boolean NOT NULL DEFAULT false,
  PRIMARY KEY (company_id, number)
);

-- Fiscal data of receipts issued here (all null for integration-received ones).
ALTER TABLE invoices
  ADD COLUMN source text NOT NULL DEFAULT 'integration' CHECK (source IN ('integration', 'arca')),
  ADD COLUMN kind text NOT NULL DEFAULT 'invoice' CHECK (kind IN ('invoice', 'credit_note')),
  ADD COLUMN receipt_code integer,
  ADD COLUMN issue_date date,
  ADD COLUMN doc_type integer,
  ADD COLUMN doc_number text,
  ADD COLUMN receiver_iva_condition integer,
  ADD COLUMN receiver_name text,
  ADD COLUMN net numeric(14, 2),
  ADD COLUMN iva numeric(14, 2),
  ADD COLUMN exempt numeric(14, 2),
  ADD COLUMN iva_lines jsonb,
  ADD COLUMN environment text,
  ADD COLUMN issuer_cuit char(11),
  ADD COLUMN associated_invoice_id integer,
  ADD COLUMN observations jsonb;

-- Every authorisation attempt. The number is reserved (status pending) in its own committed
-- transaction before the request is sent; a lost answer is recovered from ARCA itself
-- (FECompUltimoAutorizado + FECompConsultar) before any other number of the same series is taken.
CREATE TABLE invoice_attempts (
  company_id integer NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  id integer NOT NULL CHECK (id > 0),
  sale_id integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('invoice', 'credit_note')),
  letter char(1) NOT NULL CHECK (letter IN ('A', 'B', 'C')),
  receipt_code integer NOT NULL,
  issuer_cuit char(11) NOT NULL,
  environment text NOT NULL,
  point_of_sale integer NOT NULL,
  number bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
  -- The exact WSFEv1 request (amounts, document, date): a re-send is this, unchanged.
  request jsonb NOT NULL,
  receiver_name text,
  associated_invoice_id integer,
  errors jsonb NOT NULL DEFAULT '[]',
  observations jsonb NOT NULL DEFAULT '[]',
  invoice_id integer,
  tries integer NOT NULL DEFAULT 0,
  last_error text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id),
  FOREIGN KEY (company_id, sale_id) REFERENCES sales (company_id, id)
);
-- One number per series: pending and approved attempts never share one.
CREATE UNIQUE INDEX invoice_attempts_number ON invoice_attempts (issuer_cuit, environment, point_of_sale, receipt_code, number)
  WHERE status IN ('pending', 'approved');
-- At most one pending attempt per series: nothing takes N + 1 while N is unresolved.
CREATE UNIQUE INDEX invoice_attempts_one_pending ON invoice_attempts (issuer_cuit, environment, point_of_sale, receipt_code)
  WHERE status = 'pending';
-- One live invoice (and one live credit note) per sale.
CREATE UNIQUE INDEX invoice_attempts_one_per_sale ON invoice_attempts (company_id, sale_id, kind)
  WHERE status IN ('pending', 'approved');
CREATE INDEX invoice_attempts_sale_idx ON invoice_attempts (company_id, sale_id, created_at);
