import type { Database } from '../../db/client.ts';
import type { RequestCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import type { CompanyService, CreateCompanyInput } from '../companies/companies.service.ts';
import * as repo from './superadmin.repo.ts';

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
  timezone: string;
  created_at: string;
  products_count: number;
  /** Events received on the integration endpoint. */
  inbound_events_count: number;
  /** Changes recorded as outbound events (sales, payments, products, stock…), whether or not a webhook sends them. */
  outbound_events_count: number;
  webhooks_count: number;
  members_count: number;
}

export interface CompanyDetailWire extends CompanySummaryWire {
  sales_count: number;
  deposits_count: number;
  boxes_count: number;
}

export type SuperadminService = ReturnType<typeof createSuperadminService>;

export function createSuperadminService({ db, companies }: { db: Database; companies: CompanyService }) {
  async function listCompanies(query: CompanyListQuery): Promise<{ companies: CompanySummaryWire[]; total: number }> {
    const [rows, total] = await Promise.all([repo.listCompanies(db.orm, query), repo.countCompanies(db.orm, query.q)]);
    return { companies: rows.map(toWire), total };
  }

  async function getCompany(companyId: number): Promise<CompanyDetailWire> {
    const row = await repo.findCompanyDetail(db.orm, companyId);
    if (!row) throw new AppError('not_found', `company ${companyId} not found`);
    return {
      ...toWire(row),
      sales_count: Number(row.sales_count),
      deposits_count: Number(row.deposits_count),
      boxes_count: Number(row.boxes_count),
    };
  }

  /** Creates a company (deposit, box, secrets) and audits it in one transaction; the secrets are returned once. */
  async function createCompany(ctx: RequestCtx, input: CreateCompanyInput) {
    return db.orm.transaction(async (tx) => {
      const created = await companies.createCompany(input, tx);
      await recordAudit(tx, {
        action: 'company.created',
        ...auditBy(ctx),
        companyId: created.company.id,
        details: { name: created.company.name, cuit: created.company.cuit },
      });
      return created;
    });
  }

  return { listCompanies, getCompany, createCompany };
}

function toWire(row: repo.CompanyRow): CompanySummaryWire {
  return {
    id: Number(row.id),
    name: row.name,
    cuit: row.cuit,
    timezone: row.timezone,
    created_at: new Date(row.created_at).toISOString(),
    products_count: Number(row.products_count),
    inbound_events_count: Number(row.inbound_events_count),
    outbound_events_count: Number(row.outbound_events_count),
    webhooks_count: Number(row.webhooks_count),
    members_count: Number(row.members_count),
  };
}
