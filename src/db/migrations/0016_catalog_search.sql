-- The back office's product search (GET /api/v1/products?q=…): every word of q must appear in the
-- name (accents and case ignored), the sku or the barcode. One trigram index over the three, so a
-- search at 100,000 products reads the matching rows instead of the whole catalogue.
CREATE INDEX products_search_trgm_idx ON products
  USING gin ((search_text(name) || ' ' || lower(coalesce(sku, '')) || ' ' || coalesce(bc, '')) gin_trgm_ops);
