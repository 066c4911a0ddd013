import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import type { Clock } from '../../lib/time.ts';
import { auditBy, listCompanyAudit, recordAudit } from '../audit/audit.repo.ts';
import { type CompanyService, INTEGRATION_KEY_PREFIX } from '../companies/companies.service.ts';
import { findSecretsIssuedAt } from './settings.repo.ts';
import { buildIntegrationExamples, buildScannerExamples, maskSecret } from './examples.ts';

export interface SettingsServiceDeps {
  db: Database;
  config: Config;
  clock: Clock;
  companies: CompanyService;
}

export type SettingsService = ReturnType<typeof createSettingsService>;
export type SettingsOverview = Awaited<ReturnType<SettingsService['overview']>>;

/** A company admin's view of the company's integration secrets. Every reveal and rotation is audited. */
export function createSettingsService({ db, config, clock, companies }: SettingsServiceDeps) {
  const baseUrl = config.http.publicBaseUrl;

  /** The masked key (never the whole), when each secret was issued, and the endpoints to use. */
  async function overview(companyId: number) {
    const company = await companies.findCompany(companyId);
    if (!company) throw new AppError('not_found', `company ${companyId} not found`);
    const key = await companies.revealIntegrationKey(companyId);
    const since = await findSecretsIssuedAt(db.orm, companyId);
    return {
      company: { id: company.id, name: company.name },
      integration_key: key
        ? { masked: maskSecret(key, INTEGRATION_KEY_PREFIX), created_at: since.key?.toISOString() ?? null }
        : null,
      scanner_token: since.token ? { created_at: since.token.toISOString() } : null,
      endpoints: { integration: `${baseUrl}/api/integration/in`, scanner: `${baseUrl}/api/public/scanner` },
    };
  }

  /** The whole key and examples that use it; the audit row is written before the key leaves. */
  async function revealIntegrationKey(ctx: CompanyCtx) {
    const key = await companies.revealIntegrationKey(ctx.companyId);
    if (!key) throw new AppError('not_found', 'this company has no active integration key; rotate to create one');
    await recordAudit(db.orm, {
      action: 'integration_key.revealed',
      ...auditBy(ctx),
      details: { masked: maskSecret(key, INTEGRATION_KEY_PREFIX) },
    });
    return { integration_key: key, examples: buildIntegrationExamples({ baseUrl, integrationKey: key, now: clock.now() }) };
  }

  /** A new key; the old one stops working at once. */
  async function rotateIntegrationKey(ctx: CompanyCtx) {
    const key = await db.orm.transaction(async (tx) => {
      const { integrationKey } = await companies.rotateSecrets(ctx.companyId, { integration: true, scanner: false }, tx);
      await recordAudit(tx, {
        action: 'integration_key.rotated',
        ...auditBy(ctx),
        details: { masked: maskSecret(integrationKey!, INTEGRATION_KEY_PREFIX) },
      });
      return integrationKey!;
    });
    return { integration_key: key, examples: buildIntegrationExamples({ baseUrl, integrationKey: key, now: clock.now() }) };
  }

  /** A new scanner token, shown this once (only its hash is kept); the old one stops working at once. */
  async function rotateScannerToken(ctx: CompanyCtx) {
    const token = await db.orm.transaction(async (tx) => {
      const { scannerToken } = await companies.rotateSecrets(ctx.companyId, { integration: false, scanner: true }, tx);
      await recordAudit(tx, { action: 'scanner_token.rotated', ...auditBy(ctx), details: {} });
      return scannerToken!;
    });
    return { scanner_token: token, examples: buildScannerExamples(baseUrl, token) };
  }

  function listAudit(companyId: number, page: { limit: number; beforeId?: number | undefined }) {
    return listCompanyAudit(db.orm, companyId, page);
  }

  return { overview, revealIntegrationKey, rotateIntegrationKey, rotateScannerToken, listAudit };
}
