-- A closed shift never changes (issue 27): the sales figure of its report is fixed at the close,
-- like its expected amounts. Until now the report counted the session's sales not cancelled today,
-- so cancelling one of them the next day moved a printed close. Closed sessions get the figure as
-- it stood at their close (a sale cancelled after closed_at still counted then).
ALTER TABLE box_sessions ADD COLUMN sales_count integer;
ALTER TABLE box_sessions ADD COLUMN sales_total numeric(14, 2);

UPDATE box_sessions b SET
    sales_count = coalesce(x.count, 0),
    sales_total = coalesce(x.total, 0)
  FROM box_sessions b2
  LEFT JOIN LATERAL (
    SELECT count(*)::int AS count, sum(s.total) AS total
      FROM register_sales r JOIN sales s ON s.company_id = r.company_id AND s.id = r.sale_id
      WHERE r.company_id = b2.company_id AND r.box_session_id = b2.id
        AND (s.cancelled_at IS NULL OR s.cancelled_at > b2.closed_at)
  ) x ON true
  WHERE b.status = 'closed' AND b2.company_id = b.company_id AND b2.id = b.id;
