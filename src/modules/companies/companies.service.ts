import { and, eq, isNull } from 'drizzle-orm';
import type { Conn, Database } from '../../db/client.ts';
import { boxes, companies, deposits, integrationKeys, scannerTokens } from '../../db/schema/index.ts';
import { normalizeCuit } from '../../lib/cuit.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import { type Cipher, generateSecret, sha256Hex } from '../../lib/secrets.ts';
import type { Clock } from '../../lib/time.ts';

export const INTEGRATION_KEY_PREFIX = 'mos_int_';
export const SCANNER_TOKEN_PREFIX = 'mos_scn_';

export interface Company {
  id: number;
  name: string;
  cuit: string | null;
  timezone: string;
  createdAt: Date;
}

export interface CreateCompanyInput {
  name: string;
  cuit?: string | null;
  timezone?: string;
}

export interface CompanySecrets {
  integrationKey?: string;
  scannerToken?: string;
}

export interface CompanyServiceDeps {
  db: Database;
  cipher: Cipher;
  clock: Clock;
}

export type CompanyService = ReturnType<typeof createCompanyService>;

export function createCompanyService({ db, cipher, clock }: CompanyServiceDeps) {
  function validate(input: CreateCompanyInput) {
    const problems: ErrorDetail[] = [];
    const name = input.name?.trim() ?? '';
    if (name.length < 1 || name.length > 200) problems.push({ path: 'name', message: 'must have 1 to 200 characters' });
    let cuit: string | null = null;
    if (input.cuit !== undefined && input.cuit !== null && input.cuit !== '') {
      cuit = normalizeCuit(input.cuit);
      if (!cuit)
        problems.push({ path: 'cuit', message: `"${input.cuit}" is not a valid CUIT (11 digits with a valid check digit)` });
    }
    const timezone = input.timezone ?? 'America/Argentina/Buenos_Aires';
    if (!isValidTimeZone(timezone)) problems.push({ path: 'timezone', message: `"${timezone}" is not an IANA time zone` });
    if (problems.length > 0) {
      throw new AppError('validation_failed', problems.map((p) => `${p.path} ${p.message}`).join('; '), { details: problems });
    }
    return { name, cuit, timezone };
  }

  /**
   * A new company with its default deposit, first box, integration key and scanner token.
   * Pass `conn` to create it inside a larger transaction (a savepoint then).
   */
  async function createCompany(
    input: CreateCompanyInput,
    conn: Conn = db.orm,
  ): Promise<{ company: Company } & Required<CompanySecrets>> {
    const values = validate(input);
    const integrationKey = generateSecret(INTEGRATION_KEY_PREFIX);
    const scannerToken = generateSecret(SCANNER_TOKEN_PREFIX, 24);
    const company = await conn.transaction(async (tx) => {
      if (values.cuit) {
        const taken = await tx.select({ id: companies.id }).from(companies).where(eq(companies.cuit, values.cuit));
        if (taken.length > 0) throw new AppError('conflict', `a company with CUIT ${values.cuit} already exists`);
      }
      const [row] = await tx.insert(companies).values(values).returning();
      const companyId = row!.id;
      await tx.insert(deposits).values({ companyId, id: 1, name: 'Depósito principal', isDefault: true });
      await tx.insert(boxes).values({ companyId, id: 1, name: 'Caja 1' });
      await tx.insert(integrationKeys).values({
        companyId,
        keyHash: sha256Hex(integrationKey),
        keyEncrypted: cipher.encrypt(integrationKey),
      });
      await tx.insert(scannerTokens).values({ companyId, tokenHash: sha256Hex(scannerToken) });
      return row!;
    });
    return { company: toCompany(company), integrationKey, scannerToken };
  }

  /** Replaces the company's integration key and/or scanner token; the old ones stop working at once. `conn`: a caller's transaction to join. */
  async function rotateSecrets(
    companyId: number,
    which: { integration: boolean; scanner: boolean },
    conn: Conn = db.orm,
  ): Promise<CompanySecrets> {
    const now = clock.now();
    return conn.transaction(async (tx) => {
      const [company] = await tx.select({ id: companies.id }).from(companies).where(eq(companies.id, companyId)).for('update');
      if (!company) throw new AppError('not_found', `company ${companyId} not found`);
      const result: CompanySecrets = {};
      if (which.integration) {
        const key = generateSecret(INTEGRATION_KEY_PREFIX);
        await tx
          .update(integrationKeys)
          .set({ revokedAt: now })
          .where(and(eq(integrationKeys.companyId, companyId), isNull(integrationKeys.revokedAt)));
        await tx.insert(integrationKeys).values({ companyId, keyHash: sha256Hex(key), keyEncrypted: cipher.encrypt(key) });
        result.integrationKey = key;
      }
      if (which.scanner) {
        const token = generateSecret(SCANNER_TOKEN_PREFIX, 24);
        await tx
          .update(scannerTokens)
          .set({ revokedAt: now })
          .where(and(eq(scannerTokens.companyId, companyId), isNull(scannerTokens.revokedAt)));
        await tx.insert(scannerTokens).values({ companyId, tokenHash: sha256Hex(token) });
        result.scannerToken = token;
      }
      return result;
    });
  }

  /** The company that owns an active integration key, looked up by hash. */
  async function findCompanyIdByIntegrationKey(key: string): Promise<number | null> {
    if (!key.startsWith(INTEGRATION_KEY_PREFIX)) return null;
    const [row] = await db.orm
      .select({ companyId: integrationKeys.companyId })
      .from(integrationKeys)
      .where(and(eq(integrationKeys.keyHash, sha256Hex(key)), isNull(integrationKeys.revokedAt)));
    return row?.companyId ?? null;
  }

  /** The company that owns an active scanner token, looked up by hash. */
  async function findCompanyIdByScannerToken(token: string): Promise<number | null> {
    if (!token.startsWith(SCANNER_TOKEN_PREFIX)) return null;
    const [row] = await db.orm
      .select({ companyId: scannerTokens.companyId })
      .from(scannerTokens)
      .where(and(eq(scannerTokens.tokenHash, sha256Hex(token)), isNull(scannerTokens.revokedAt)));
    return row?.companyId ?? null;
  }

  /** The plaintext of the company's active integration key (for its own settings page and signing). */
  async function revealIntegrationKey(companyId: number): Promise<string | null> {
    const [row] = await db.orm
      .select({ sealed: integrationKeys.keyEncrypted })
      .from(integrationKeys)
      .where(and(eq(integrationKeys.companyId, companyId), isNull(integrationKeys.revokedAt)));
    return row ? cipher.decrypt(row.sealed) : null;
  }

  async function findCompany(companyId: number): Promise<Company | null> {
    const [row] = await db.orm.select().from(companies).where(eq(companies.id, companyId));
    return row ? toCompany(row) : null;
  }

  return {
    createCompany,
    rotateSecrets,
    findCompanyIdByIntegrationKey,
    findCompanyIdByScannerToken,
    revealIntegrationKey,
    findCompany,
  };
}

function toCompany(row: typeof companies.$inferSelect): Company {
  return { id: row.id, name: row.name, cuit: row.cuit, timezone: row.timezone, createdAt: row.createdAt };
}

function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
