import { createHash } from 'node:crypto';
import type { Database } from '../../db/client.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import type { Clock } from '../../lib/time.ts';
import { actsAsAdmin, money } from './actor.ts';
import { createBoxSessions } from './box-sessions.ts';
import { type AdminApprover, createCashier } from './cashier.ts';
import { discountLimitOf } from './discounts.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import { AppError } from '../../lib/errors.ts';
import { findCompanySettings } from '../companies/companies.repo.ts';
import * as repo from './register.repo.ts';
import { createSalesView } from '../sales/sales-view.ts';
import { registerScaleLayout } from './scale.ts';

// The cash register: what the register screen loads (boxes, catalogue), box sessions
// (box-sessions.ts), the cashier's flow (cashier.ts: sell, pay, cancel/refund, each sale change
// through the sales module) and, through the sales module
// (sales/sales-view.ts), the sales as the merchant API reads them.

export type RegisterService = ReturnType<typeof createRegisterService>;

export function createRegisterService(deps: { db: Database; clock: Clock; approver?: AdminApprover }) {
  const orm = deps.db.orm;
  return {
    async registerState(ctx: CompanyCtx) {
      const [company, boxes] = await Promise.all([findCompanySettings(orm, ctx.companyId), repo.listBoxes(orm, ctx.companyId)]);
      return {
        company: { name: company.name, cuit: company.cuit },
        boxes: boxes.map((b) => ({
          id: b.id,
          name: b.name,
          deposit_id: b.sells_from,
          open_session_id: b.open_session_id,
          // People are named by the company's own number for them, never by the account's users.id.
          open_session_user_id: b.open_session_user_no === null ? null : Number(b.open_session_user_no),
          open_session_user_name: b.open_session_user_name,
        })),
        scale_label: registerScaleLayout(company.settings['scaleLabel']),
        can_change_prices: actsAsAdmin(ctx) || company.settings['registerPriceOverride'] === true,
        discount_limit_percent: discountLimitOf(company.settings),
        can_discount_freely: actsAsAdmin(ctx),
        // The signed-in person by the company's number for them (the session's), never users.id.
        user_id: ctx.actor.kind === 'user' ? ctx.actor.memberNo : null,
      };
    },

    /** The register's settings the owner chooses (GET/PUT /api/v1/register/settings). */
    async registerSettings(ctx: CompanyCtx) {
      const company = await findCompanySettings(orm, ctx.companyId);
      return { discount_limit_percent: discountLimitOf(company.settings) };
    },

    /** Changes the cashiers' discount limit (audited); answers the settings as stored. */
    async updateRegisterSettings(ctx: CompanyCtx, input: { discount_limit_percent: number }) {
      const percent = Math.round(input.discount_limit_percent * 100) / 100;
      return orm.transaction(async (tx) => {
        const changed = await repo.setDiscountLimit(tx, ctx.companyId, percent);
        if (!changed) throw new AppError('not_found', `company ${ctx.companyId} not found`);
        await recordAudit(tx, {
          action: 'settings.discount_limit_changed',
          ...auditBy(ctx),
          details: { from: discountLimitOf({ discountLimitPercent: changed.previous }), to: percent },
        });
        return { discount_limit_percent: percent };
      });
    },

    async catalogStamp(companyId: number) {
      const [stamp, company] = await Promise.all([repo.catalogStamp(orm, companyId), findCompanySettings(orm, companyId)]);
      const layout = JSON.stringify(company.settings['scaleLabel'] ?? null);
      const hash = createHash('sha256').update(`${stamp.count}|${stamp.latest}|${layout}`).digest('base64url').slice(0, 22);
      return { etag: `"${hash}"`, at: stamp.latest ? new Date(stamp.latest).toISOString() : null };
    },

    async catalog(companyId: number) {
      const rows = await repo.catalogRows(orm, companyId);
      return rows.map((r): [number, string, number, string | null, string | null, 'unit' | 'kg'] => [
        r.id,
        r.name,
        money(r.price),
        r.bc,
        r.sku,
        r.unit,
      ]);
    },

    ...createBoxSessions(deps),
    ...createCashier(deps),
    ...createSalesView(deps),
  };
}
