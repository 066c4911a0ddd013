import { type SQL, sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';
import type { GroupRow } from './reports.repo.ts';

// The daily rollup of sale lines per product (0170_report_rollup.sql): each local day's fingerprint
// of its sales, rebuilding the days whose fingerprint changed, and reading product totals from it.

export interface DaySpan {
  from: string;
  to: string;
  timeZone: string;
}

const dayArray = (days: string[]) => sql`${`{${days.join(',')}}`}::date[]`;

function inSpan(companyId: number, span: DaySpan): SQL {
  return sql`s.company_id = ${companyId}
    AND s.created_at >= (${span.from}::date::timestamp AT TIME ZONE ${span.timeZone})
    AND s.created_at < ((${span.to}::date + 1)::timestamp AT TIME ZONE ${span.timeZone})`;
}

/**
 * What a day's rollup was built from: its sales (cancelled too), their amounts and last change, and
 * the zone. Sale lines never change after the sale is made; a status change moves updated_at.
 */
function fingerprintSql(span: DaySpan): SQL {
  return sql`concat_ws(':', count(*), count(*) FILTER (WHERE s.status = 'cancelled'), sum(s.total),
    extract(epoch FROM max(s.updated_at)), ${span.timeZone}::text)`;
}

const localDay = (span: DaySpan) => sql`(s.created_at AT TIME ZONE ${span.timeZone})::date`;

export function currentFingerprints(
  conn: Conn,
  companyId: number,
  span: DaySpan,
): Promise<{ day: string; fingerprint: string }[]> {
  return selectRows(
    conn,
    sql`SELECT ${localDay(span)}::text AS day, ${fingerprintSql(span)} AS fingerprint
      FROM sales s WHERE ${inSpan(companyId, span)} GROUP BY 1`,
  );
}

export function storedFingerprints(
  conn: Conn,
  companyId: number,
  span: DaySpan,
): Promise<{ day: string; fingerprint: string }[]> {
  return selectRows(
    conn,
    sql`SELECT day::text AS day, fingerprint FROM report_days
      WHERE company_id = ${companyId} AND day BETWEEN ${span.from}::date AND ${span.to}::date`,
  );
}

/**
 * Recomputes `days` (inside the caller's transaction, one rebuild per company at a time): their
 * fingerprints first, then their lines, so lines never miss a sale the fingerprint counted (a sale
 * committed in between makes the fingerprint stale, and the day is rebuilt on the next read).
 */
export async function rebuildDays(tx: Conn, companyId: number, span: DaySpan, days: string[]) {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('report_days'), ${companyId})`);
  await tx.execute(sql`DELETE FROM report_days WHERE company_id = ${companyId} AND day = ANY(${dayArray(days)})`);
  await tx.execute(
    sql`INSERT INTO report_days (company_id, day, fingerprint)
      SELECT ${companyId}, ${localDay(span)}, ${fingerprintSql(span)} FROM sales s
      WHERE ${inSpan(companyId, span)} AND ${localDay(span)} = ANY(${dayArray(days)}) GROUP BY 2`,
  );
  await tx.execute(
    sql`INSERT INTO report_product_days (company_id, day, product_id, quantity, total, tickets)
      SELECT ${companyId}, ${localDay(span)}, i.product_id, sum(i.quantity), sum(i.subtotal), count(DISTINCT s.id)
      FROM sales s JOIN sale_items i ON i.company_id = s.company_id AND i.sale_id = s.id
      WHERE ${inSpan(companyId, span)} AND s.status <> 'cancelled'
        AND ${localDay(span)} IN (SELECT d.day FROM report_days d WHERE d.company_id = ${companyId} AND d.day = ANY(${dayArray(days)}))
      GROUP BY 2, 3`,
  );
}

/**
 * Sales per product over the span from the rollup, biggest first (the shape of reports.repo linesBy).
 * The days are summed per product first and only then joined to the catalogue: one product lookup
 * per product sold, not one per product-day (a month is ~30 times fewer lookups).
 */
export function productTotals(conn: Conn, companyId: number, span: DaySpan, limit?: number): Promise<GroupRow[]> {
  return selectRows<GroupRow>(
    conn,
    sql`SELECT p.id::text AS key, p.name, t.quantity::text AS quantity, t.total::text AS total, t.tickets::int AS tickets,
        CASE WHEN p.cost IS NULL THEN NULL ELSE round(t.quantity * p.cost, 2)::text END AS cost,
        (CASE WHEN p.cost IS NULL THEN t.total ELSE 0 END)::text AS without_cost
      FROM (SELECT r.product_id, sum(r.quantity) AS quantity, sum(r.total) AS total, sum(r.tickets) AS tickets
        FROM report_product_days r
        WHERE r.company_id = ${companyId} AND r.day BETWEEN ${span.from}::date AND ${span.to}::date
        GROUP BY r.product_id) t
      JOIN products p ON p.company_id = ${companyId} AND p.id = t.product_id
      ORDER BY t.total DESC, 2${limit === undefined ? sql`` : sql` LIMIT ${limit}`}`,
  );
}

/** Of `days` (ones whose stored fingerprint matches their sales), the lines that differ from the raw rows. */
export function rollupMismatches(
  conn: Conn,
  companyId: number,
  timeZone: string,
  days: string[],
): Promise<{ day: string; product_id: number }[]> {
  if (days.length === 0) return Promise.resolve([]);
  const day = sql`(s.created_at AT TIME ZONE ${timeZone})::date`;
  return selectRows(
    conn,
    sql`WITH raw AS (
        SELECT ${day} AS day, i.product_id, sum(i.quantity) AS quantity, sum(i.subtotal) AS total, count(DISTINCT s.id)::int AS tickets
        FROM sales s JOIN sale_items i ON i.company_id = s.company_id AND i.sale_id = s.id
        WHERE s.company_id = ${companyId} AND s.status <> 'cancelled' AND ${day} = ANY(${dayArray(days)}) GROUP BY 1, 2
      ),
      kept AS (SELECT * FROM report_product_days WHERE company_id = ${companyId} AND day = ANY(${dayArray(days)}))
      SELECT coalesce(k.day, w.day)::text AS day, coalesce(k.product_id, w.product_id) AS product_id
      FROM kept k FULL JOIN raw w ON w.day = k.day AND w.product_id = k.product_id
      WHERE k.day IS NULL OR w.day IS NULL OR k.quantity <> w.quantity OR k.total <> w.total OR k.tickets <> w.tickets
      ORDER BY 1, 2 LIMIT 50`,
  );
}

/** Every day the rollup holds, oldest first (for books verify). */
export async function storedSpan(conn: Conn, companyId: number): Promise<{ from: string; to: string } | null> {
  const [row] = await selectRows<{ from: string | null; to: string | null }>(
    conn,
    sql`SELECT min(day)::text AS from, max(day)::text AS to FROM report_days WHERE company_id = ${companyId}`,
  );
  return row?.from && row.to ? { from: row.from, to: row.to } : null;
}
