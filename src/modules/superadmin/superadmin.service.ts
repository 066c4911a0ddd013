import type { Database } from '../../db/client.ts';
import type { RequestCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import type { CompanyService, CreateCompanyInput } from '../companies/companies.service.ts';
import { deleteCuitClaim, listCuitClaims, moveCuit } from '../companies/cuit-claims.repo.ts';
import * as repo from './superadmin.repo.ts';
import { dbDate } from '../../db/dates.ts';

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
  /** CUITs this company asked for that another company has (the operator resolves them). */
  cuit_claims: { cuit: string; claimed_at: string; holder: { id: number; name: string } | null }[];
}

export type SuperadminService = ReturnType<typeof createSuperadminService>;

export function createSuperadminService({ db, companies }: { db: Database; companies: CompanyService }) {
  async function listCompanies(query: CompanyListQuery): Promise<{ companies: CompanySummaryWire[]; total: number }> {
    const [rows, total] = await Promise.all([repo.listCompanies(db.orm, query), repo.countCompanies(db.orm, query.q)]);
    return { companies: rows.map(toWire), total };
  }

  async function getCompany(companyId: number): Promise<CompanyDetailWire> {
    const [row, claims] = await Promise.all([repo.findCompanyDetail(db.orm, companyId), listCuitClaims(db.orm, companyId)]);
    if (!row) throw new AppError('not_found', `company ${companyId} not found`);
    return {
      ...toWire(row),
      sales_count: Number(row.sales_count),
      deposits_count: Number(row.deposits_count),
      boxes_count: Number(row.boxes_count),
      cuit_claims: claims.map((c) => ({
        cuit: c.cuit,
        claimed_at: new Date(c.claimed_at).toISOString(),
        holder: c.holder_id === null ? null : { id: Number(c.holder_id), name: c.holder_name! },
      })),
    };
  }

  /**
   * Resolves a company's claim of a CUIT: 'move' gives it the CUIT (the company that had it loses
   * it), 'dismiss' drops the claim. Both audited in each company concerned.
   */
  async function resolveCuitClaim(ctx: RequestCtx, companyId: number, cuit: string, action: 'move' | 'dismiss') {
    await db.orm.transaction(async (tx) => {
      if (!(await deleteCuitClaim(tx, companyId, cuit)))
        throw new AppError('not_found', `no claim of CUIT ${cuit} in company ${companyId}`);
      const by = auditBy(ctx);
      if (action === 'dismiss') {
        await recordAudit(tx, { action: 'company.cuit_claim_dismissed', ...by, companyId, details: { cuit } });
        return;
      }
      const previous = await moveCuit(tx, companyId, cuit);
      await recordAudit(tx, { action: 'company.cuit_moved', ...by, companyId, details: { cuit, assigned: true } });
      if (previous !== null) {
        await recordAudit(tx, { action: 'company.cuit_moved', ...by, companyId: previous, details: { cuit, removed: true } });
      }
    });
    return getCompany(companyId);
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

  return { listCompanies, getCompany, createCompany, resolveCuitClaim };
}

function toWire(row: repo.CompanyRow): CompanySummaryWire {
  return {
    id: Number(row.id),
    name: row.name,
    cuit: row.cuit,
    timezone: row.timezone,
    created_at: dbDate(row.created_at).toISOString(),
    products_count: Number(row.products_count),
    inbound_events_count: Number(row.inbound_events_count),
    outbound_events_count: Number(row.outbound_events_count),
    webhooks_count: Number(row.webhooks_count),
    members_count: Number(row.members_count),
  };
}
