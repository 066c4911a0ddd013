import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
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

  // An audit row's id is one numbering for every company: the gap between two rows of a company would
  // count what the other companies did in between. Outside it travels sealed, one AES block holding
  // the company and the id: the same string every time (a stable key for screens and a `before`
  // cursor), meaningless to read, and opened only for the company it was given to.
  const auditKey = createHash('sha256').update(`mostrador:audit-cursor:${config.secretKey}`).digest();

  function sealAuditId(companyId: number, id: number): string {
    const block = Buffer.alloc(16);
    block.writeUInt32BE(companyId, 0);
    block.writeBigUInt64BE(BigInt(id), 8);
    const cipher = createCipheriv('aes-256-ecb', auditKey, null).setAutoPadding(false);
    return Buffer.concat([cipher.update(block), cipher.final()]).toString('base64url');
  }

  function openAuditCursor(companyId: number, sealed: string): number {
    const refused = new AppError('bad_request', 'before must be the id of an entry of this list', {
      details: [{ path: '/before', message: 'not an entry of this list' }],
    });
    const raw = Buffer.from(sealed, 'base64url');
    if (raw.length !== 16 || raw.toString('base64url') !== sealed) throw refused;
    const decipher = createDecipheriv('aes-256-ecb', auditKey, null).setAutoPadding(false);
    const block = Buffer.concat([decipher.update(raw), decipher.final()]);
    const id = block.readBigUInt64BE(8);
    if (block.readUInt32BE(0) !== companyId || block.readUInt32BE(4) !== 0 || id < 1n || id > BigInt(Number.MAX_SAFE_INTEGER))
      throw refused;
    return Number(id);
  }

  /** A company's audit entries, newest first; `before` is the (sealed) id of the last entry seen. */
  async function listAudit(companyId: number, page: { limit: number; before?: string | undefined }) {
    const beforeId = page.before === undefined ? undefined : openAuditCursor(companyId, page.before);
    const rows = await listCompanyAudit(db.orm, companyId, { limit: page.limit, beforeId });
    return rows.map((row) => ({ ...row, id: sealAuditId(companyId, row.id) }));
  }

  return { overview, revealIntegrationKey, rotateIntegrationKey, rotateScannerToken, listAudit };
}
