import type { Conn, Database } from '../../db/client.ts';
import { normalizeCuit } from '../../lib/cuit.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import { type Cipher, generateSecret, sha256Hex } from '../../lib/secrets.ts';
import type { Clock } from '../../lib/time.ts';
import * as repo from './companies.repo.ts';

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
      if (values.cuit && (await repo.cuitTaken(tx, values.cuit))) {
        throw new AppError('conflict', `a company with CUIT ${values.cuit} already exists`);
      }
      const row = await repo.insertCompany(tx, values);
      await repo.insertFirstDepositAndBox(tx, row.id);
      await repo.replaceIntegrationKey(tx, {
        companyId: row.id,
        keyHash: sha256Hex(integrationKey),
        keyEncrypted: cipher.encrypt(integrationKey),
        now: null,
      });
      await repo.replaceScannerToken(tx, { companyId: row.id, tokenHash: sha256Hex(scannerToken), now: null });
      return row;
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
      if (!(await repo.lockCompany(tx, companyId))) throw new AppError('not_found', `company ${companyId} not found`);
      const result: CompanySecrets = {};
      if (which.integration) {
        const key = generateSecret(INTEGRATION_KEY_PREFIX);
        await repo.replaceIntegrationKey(tx, { companyId, keyHash: sha256Hex(key), keyEncrypted: cipher.encrypt(key), now });
        result.integrationKey = key;
      }
      if (which.scanner) {
        const token = generateSecret(SCANNER_TOKEN_PREFIX, 24);
        await repo.replaceScannerToken(tx, { companyId, tokenHash: sha256Hex(token), now });
        result.scannerToken = token;
      }
      return result;
    });
  }

  /** The company that owns an active integration key, looked up by hash. */
  async function findCompanyIdByIntegrationKey(key: string): Promise<number | null> {
    if (!key.startsWith(INTEGRATION_KEY_PREFIX)) return null;
    return repo.companyOfIntegrationKeyHash(db.orm, sha256Hex(key));
  }

  /** The company that owns an active scanner token, looked up by hash. */
  async function findCompanyIdByScannerToken(token: string): Promise<number | null> {
    if (!token.startsWith(SCANNER_TOKEN_PREFIX)) return null;
    return repo.companyOfScannerTokenHash(db.orm, sha256Hex(token));
  }

  /** The plaintext of the company's active integration key (for its own settings page and signing). */
  async function revealIntegrationKey(companyId: number): Promise<string | null> {
    const sealed = await repo.sealedIntegrationKey(db.orm, companyId);
    return sealed === null ? null : cipher.decrypt(sealed);
  }

  async function findCompany(companyId: number): Promise<Company | null> {
    const row = await repo.findCompany(db.orm, companyId);
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

function toCompany(row: repo.CompanyRow): Company {
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
