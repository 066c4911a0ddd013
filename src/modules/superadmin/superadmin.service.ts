import { sql } from 'drizzle-orm';
import { type Conn, type Database, selectRows } from '../../db/client.ts';
import { type AuditActor, type AuditOrigin, recordAudit } from '../audit/audit.repo.ts';
import type { CompanyService, CreateCompanyInput } from '../companies/companies.service.ts';

export interface CompanyListQuery {
  limit: number;
  offset: number;
  /** Part of the name (accents and case ignored) or of the CUIT digits. */
  q?: string | undefined;
}

export interface CompanySummaryWire {
  id: number;
  name: string;
  cuit: string | null;
  created_at: string;
  products_count: number;
  /** Events received on the integration endpoint; null while that store does not exist yet. */
  inbound_events_count: number | null;
  outbound_events_count: number;
}

interface CompanyRow {
  id: number;
  name: string;
  cuit: string | null;
  created_at: Date | string;
  products_count: number;
  inbound_events_count: number | null;
  outbound_events_count: number;
}

export type SuperadminService = ReturnType<typeof createSuperadminService>;

export function createSuperadminService({ db, companies }: { db: Database; companies: CompanyService }) {
  // The inbound event store comes with the integration module; once there it never goes away.
  let hasInboundEvents = false;
  async function inboundEventsExist(conn: Conn): Promise<boolean> {
    if (hasInboundEvents) return true;
    const [row] = await selectRows<{ found: boolean }>(conn, sql`SELECT to_regclass('inbound_events') IS NOT NULL AS found`);
    hasInboundEvents = Boolean(row?.found);
    return hasInboundEvents;
  }

  /** Companies, newest first, with how much each holds (counts run only for the page shown). */
  async function listCompanies(query: CompanyListQuery): Promise<{ companies: CompanySummaryWire[]; total: number }> {
    const inbound = (await inboundEventsExist(db.orm))
      ? sql`(SELECT count(*) FROM inbound_events e WHERE e.company_id = c.id)::int`
      : sql`NULL::int`;
    const term = query.q?.trim() ?? '';
    const digits = term.replace(/\D/g, '');
    const filter =
      term === ''
        ? sql`true`
        : sql`(strpos(search_text(c.name), search_text(${term})) > 0 OR (${digits}::text <> '' AND strpos(c.cuit, ${digits}) > 0))`;
    const rows = await selectRows<CompanyRow>(
      db.orm,
      sql`SELECT c.id, c.name, c.cuit, c.created_at,
            (SELECT count(*) FROM products p WHERE p.company_id = c.id)::int AS products_count,
            ${inbound} AS inbound_events_count,
            (SELECT count(*) FROM outbox_events o WHERE o.company_id = c.id)::int AS outbound_events_count
          FROM companies c WHERE ${filter}
          ORDER BY c.created_at DESC, c.id DESC LIMIT ${query.limit} OFFSET ${query.offset}`,
    );
    const [count] = await selectRows<{ total: number }>(
      db.orm,
      sql`SELECT count(*)::int AS total FROM companies c WHERE ${filter}`,
    );
    return { companies: rows.map(toWire), total: Number(count?.total ?? 0) };
  }

  /** Creates a company (deposit, box, secrets) and audits it in one transaction; the secrets are returned once. */
  async function createCompany(input: CreateCompanyInput, actor: AuditActor, origin: AuditOrigin) {
    return db.orm.transaction(async (tx) => {
      const created = await companies.createCompany(input, tx);
      await recordAudit(tx, {
        action: 'company.created',
        actor,
        companyId: created.company.id,
        origin,
        details: { name: created.company.name, cuit: created.company.cuit },
      });
      return created;
    });
  }

  return { listCompanies, createCompany };
}

function toWire(row: CompanyRow): CompanySummaryWire {
  return {
    id: Number(row.id),
    name: row.name,
    cuit: row.cuit,
    created_at: new Date(row.created_at).toISOString(),
    products_count: Number(row.products_count),
    inbound_events_count: row.inbound_events_count === null ? null : Number(row.inbound_events_count),
    outbound_events_count: Number(row.outbound_events_count),
  };
}
