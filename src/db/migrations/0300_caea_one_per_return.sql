-- A sale's CAEA receipts: one invoice, and one credit note per return (0200 made CAE attempts unique
-- the same way). 0230 allowed one CAEA credit note per sale, so a second return's credit note during
-- an outage could not be issued (the first return's came back instead).
DROP INDEX invoices_caea_one_per_sale;
CREATE UNIQUE INDEX invoices_caea_one_per_sale ON invoices (company_id, sale_id, kind, coalesce(return_id, 0))
  WHERE emission = 'caea';
