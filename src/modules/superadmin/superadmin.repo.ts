import { type SQL, sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';

export interface CompanyRow {
  id: number;
  name: string;
  cuit: string | null;
  timezone: string;
  created_at: Date | string;
  products_count: number;
  inbound_events_count: number;
  outbound_events_count: number;
  webhooks_count: number;
  members_count: number;
}

export interface CompanyDetailRow extends CompanyRow {
  sales_count: number;
  deposits_count: number;
  boxes_count: number;
}

const COUNTS = sql`(SELECT count(*) FROM products p WHERE p.company_id = c.id)::int AS products_count,
  (SELECT count(*) FROM inbound_events e WHERE e.company_id = c.id)::int AS inbound_events_count,
  (SELECT count(*) FROM outbox_events o WHERE o.company_id = c.id)::int AS outbound_events_count,
  (SELECT count(*) FROM webhook_endpoints w WHERE w.company_id = c.id)::int AS webhooks_count,
  (SELECT count(*) FROM memberships m WHERE m.company_id = c.id AND m.disabled_at IS NULL)::int AS members_count`;

function searchFilter(q: string | undefined): SQL {
  const term = q?.trim() ?? '';
  const digits = term.replace(/\D/g, '');
  return term === ''
    ? sql`true`
    : sql`(strpos(search_text(c.name), search_text(${term})) > 0 OR (${digits}::text <> '' AND strpos(c.cuit, ${digits}) > 0))`;
}

/** Companies, newest first, with what each holds (counts run only for the page shown). */
export function listCompanies(
  conn: Conn,
  query: { limit: number; offset: number; q?: string | undefined },
): Promise<CompanyRow[]> {
  return selectRows<CompanyRow>(
    conn,
    sql`SELECT c.id, c.name, c.cuit, c.timezone, c.created_at, ${COUNTS}
      FROM companies c WHERE ${searchFilter(query.q)}
      ORDER BY c.created_at DESC, c.id DESC LIMIT ${query.limit} OFFSET ${query.offset}`,
  );
}

export async function countCompanies(conn: Conn, q: string | undefined): Promise<number> {
  const [row] = await selectRows<{ total: number }>(
    conn,
    sql`SELECT count(*)::int AS total FROM companies c WHERE ${searchFilter(q)}`,
  );
  return Number(row?.total ?? 0);
}

export async function findCompanyDetail(conn: Conn, companyId: number): Promise<CompanyDetailRow | null> {
  const [row] = await selectRows<CompanyDetailRow>(
    conn,
    sql`SELECT c.id, c.name, c.cuit, c.timezone, c.created_at, ${COUNTS},
        (SELECT count(*) FROM sales s WHERE s.company_id = c.id)::int AS sales_count,
        (SELECT count(*) FROM deposits d WHERE d.company_id = c.id)::int AS deposits_count,
        (SELECT count(*) FROM boxes b WHERE b.company_id = c.id)::int AS boxes_count
      FROM companies c WHERE c.id = ${companyId}`,
  );
  return row ?? null;
}
