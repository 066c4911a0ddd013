-- The Libro IVA Digital reads a month of receipts by their date: ours by issue_date (CbteFch),
-- received ones (no issue_date) by when they were issued.
CREATE INDEX invoices_issue_date_idx ON invoices (company_id, issue_date) WHERE issue_date IS NOT NULL;
CREATE INDEX invoices_received_issued_idx ON invoices (company_id, issued_at) WHERE issue_date IS NULL;
