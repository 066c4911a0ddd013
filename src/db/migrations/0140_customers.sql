-- The merchant CRM (issue 28): a customer's identity, fiscal data, address and account settings.
-- The table existed since 0001 with a free-text document ("DNI 28.456.789"); the document is now a
-- type and the bare number (digits only; letters too for a passport), unique per company and type.
-- IVA condition is ARCA's receiver condition code (CondicionIVAReceptorId: 1 Responsable
-- Inscripto, 4 Exento, 5 Consumidor Final, 6 Responsable Monotributo, …). A customer is disabled,
-- never deleted. account_enabled says whether the shop sells to them on account (cuenta
-- corriente); credit_limit is optional (null: no limit). search is the accent-insensitive text the
-- list searches (name, document, email and phone digits), like products.search.
ALTER TABLE customers
  ADD COLUMN document_type text CHECK (document_type IN ('cuit', 'cuil', 'dni', 'pasaporte')),
  ADD COLUMN iva_condition integer,
  ADD COLUMN street text,
  ADD COLUMN city text,
  ADD COLUMN province text,
  ADD COLUMN postal_code text,
  ADD COLUMN notes text,
  ADD COLUMN account_enabled boolean NOT NULL DEFAULT false,
  ADD COLUMN credit_limit numeric(14, 2) CHECK (credit_limit IS NULL OR credit_limit >= 0),
  ADD COLUMN enabled boolean NOT NULL DEFAULT true,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();

-- Existing rows (the demo's): "DNI 28.456.789" / "CUIT 20-12345678-6" become a type and digits.
UPDATE customers
SET document_type = CASE
      WHEN document ~* '^\s*cuit' THEN 'cuit'
      WHEN document ~* '^\s*cuil' THEN 'cuil'
      WHEN document ~* '^\s*pas' THEN 'pasaporte'
      ELSE 'dni'
    END,
    document = nullif(regexp_replace(document, '[^0-9A-Za-z]|^\s*(cuit|cuil|dni|pasaporte)', '', 'gi'), '')
WHERE document IS NOT NULL;
UPDATE customers SET document_type = NULL WHERE document IS NULL;

ALTER TABLE customers
  ADD CONSTRAINT customers_document_pair CHECK ((document IS NULL) = (document_type IS NULL)),
  ADD COLUMN search text GENERATED ALWAYS AS (
    search_text(name) || ' ' || lower(coalesce(document, '')) || ' ' || lower(coalesce(email, '')) || ' ' ||
    regexp_replace(coalesce(phone, ''), '[^0-9]', '', 'g')
  ) STORED;

CREATE UNIQUE INDEX customers_document_key ON customers (company_id, document_type, document) WHERE document IS NOT NULL;
CREATE INDEX customers_search_idx ON customers USING gin (search gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX customers_name_idx ON customers (company_id, lower(name), id);

-- Sales on account are found per customer (statements, balances, allocation oldest first).
CREATE INDEX sales_customer_idx ON sales (company_id, customer_id, created_at) WHERE customer_id IS NOT NULL;
