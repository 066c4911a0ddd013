import type { Database } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/pg-errors.ts';
import type { FiscalAuthMode, FiscalCheck, FiscalEnvironment, IvaCondition } from '../../db/schema/index.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { normalizeCuit } from '../../lib/cuit.ts';
import { AppError } from '../../lib/errors.ts';
import type { Cipher } from '../../lib/secrets.ts';
import type { Clock } from '../../lib/time.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import { createCsr, describeCertificate, generateKeyPair, keyMatchesCertificate } from '../arca/certs.ts';
import { ArcaFaultError, ArcaServiceError, ArcaTransportError } from '../arca/errors.ts';
import type { ArcaAccess, ArcaCredentials } from './arca-access.ts';
import * as repo from './fiscal.repo.ts';
import { recordCuitClaim } from '../companies/cuit-claims.repo.ts';

/** The issuer as a printout shows it (printout.ts reads it from here). */
export interface PrintIssuer {
  companyName: string;
  legalName: string | null;
  cuit: string | null;
  address: string | null;
  grossIncome: string | null;
  activityStart: string | null;
  ivaCondition: IvaCondition | null;
}

export interface FiscalUpdate {
  cuit?: string | undefined;
  iva_condition?: IvaCondition | undefined;
  legal_name?: string | null | undefined;
  address?: string | null | undefined;
  gross_income?: string | null | undefined;
  activity_start?: string | null | undefined;
  auth_mode?: FiscalAuthMode | undefined;
  environment?: FiscalEnvironment | undefined;
  points_of_sale?: number[] | undefined;
  default_point_of_sale?: number | null | undefined;
  caea_enabled?: boolean | undefined;
  caea_point_of_sale?: number | null | undefined;
  caea_register_point_of_sale?: number | null | undefined;
}

/** Everything the issuer needs, checked: the company's fiscal data and how to reach ARCA. */
export interface FiscalReady {
  companyName: string;
  cuit: string;
  ivaCondition: IvaCondition;
  legalName: string;
  address: string | null;
  grossIncome: string | null;
  activityStart: string | null;
  environment: FiscalEnvironment;
  defaultPointOfSale: number | null;
  pointsOfSale: number[];
  /**
   * CAEA contingency (0230): on or off, the point of sale (of type CAEA) the server issues on, and
   * the one of the register boxes' blocks (0301): the same one when the company has no second.
   */
  caea: { enabled: boolean; pointOfSale: number | null; registerPointOfSale: number | null };
  credentials: ArcaCredentials;
}

/** A point of sale ARCA lists as CAEA ("CAEA - … - Contingencias"): never used to ask for a CAE. */
const isCaeaPoint = (p: { emissionType: string | null }) => (p.emissionType ?? '').toUpperCase().startsWith('CAEA');

/** Spanish, for the screen: what is still missing before the company can invoice. */
function missingOf(row: repo.FiscalRow | null, cuit: string | null, points: number, delegationAvailable: boolean): string[] {
  const missing: string[] = [];
  if (!cuit) missing.push('el CUIT de la empresa');
  if (!row) return [...missing, 'la condición frente al IVA', 'al menos un punto de venta'];
  if (points === 0) missing.push('al menos un punto de venta web service');
  if (row.authMode === 'own_certificate' && (!row.certPem || !row.keySealed))
    missing.push('el certificado y la clave de la empresa');
  if (row.authMode === 'delegation' && !delegationAvailable) {
    missing.push('el certificado del servicio (ARCA_CUIT, ARCA_CERT_FILE y ARCA_KEY_FILE) o un certificado propio');
  }
  return missing;
}

export type FiscalService = ReturnType<typeof createFiscalService>;

/** Thrown inside the update's transaction so that it rolls back before the claim is recorded. */
class CuitUnavailable extends Error {}

export function createFiscalService({
  db,
  clock,
  cipher,
  arca,
}: {
  db: Database;
  clock: Clock;
  cipher: Cipher;
  arca: ArcaAccess;
}) {
  const { orm } = db;

  async function setupWire(companyId: number) {
    const company = await repo.findCompany(orm, companyId);
    if (!company) throw new AppError('not_found', `company ${companyId} not found`);
    const row = await repo.findFiscal(orm, companyId);
    const points = await repo.listPointsOfSale(orm, companyId);
    const certificate = row?.certPem ? describeCertificate(row.certPem) : null;
    const missing = missingOf(row, company.cuit, points.length, arca.delegationAvailable);
    return {
      company_name: company.name,
      cuit: company.cuit,
      iva_condition: row?.ivaCondition ?? null,
      legal_name: row?.legalName ?? null,
      address: row?.address ?? null,
      gross_income: row?.grossIncome ?? null,
      activity_start: row?.activityStart ?? null,
      auth_mode: row?.authMode ?? 'delegation',
      environment: row?.environment ?? 'homologacion',
      points_of_sale: points.map((p) => ({ number: p.number, emission_type: p.emissionType, blocked: p.blocked })),
      default_point_of_sale: row?.defaultPointOfSale ?? points[0]?.number ?? null,
      caea_enabled: row?.caeaEnabled ?? false,
      caea_point_of_sale: row?.caeaPointOfSale ?? null,
      caea_register_point_of_sale: row?.caeaRegisterPointOfSale ?? null,
      certificate: certificate
        ? {
            subject: certificate.subject,
            cuit: certificate.cuit,
            not_before: certificate.notBefore.toISOString(),
            not_after: certificate.notAfter.toISOString(),
            fingerprint: certificate.fingerprint,
          }
        : null,
      pending_csr: row?.pendingCsrPem ?? null,
      service_cuit: await arca.serviceCuit(),
      last_check: row?.lastCheck ?? null,
      last_check_at: row?.lastCheckAt?.toISOString() ?? null,
      ready: missing.length === 0,
      missing,
    };
  }

  async function credentialsOf(row: repo.FiscalRow, cuit: string): Promise<ArcaCredentials> {
    if (row.authMode === 'own_certificate') {
      if (!row.certPem || !row.keySealed) {
        throw new AppError('invalid_state', 'the company has no certificate and key: upload them or switch to delegation');
      }
      return { cuit, environment: row.environment, certPem: row.certPem, keyPem: cipher.decrypt(row.keySealed) };
    }
    const service = await arca.serviceCertificate();
    if (!service) {
      throw new AppError(
        'invalid_state',
        'delegation needs the service certificate (ARCA_CUIT, ARCA_CERT_FILE, ARCA_KEY_FILE); upload the company certificate instead',
      );
    }
    return { cuit, environment: row.environment, certPem: service.certPem, keyPem: service.keyPem };
  }

  /** The update itself, in one transaction; a CUIT another company has throws CuitUnavailable. */
  async function updateInTransaction(ctx: CompanyCtx, input: FiscalUpdate) {
    const { companyId } = ctx;
    await orm.transaction(async (tx) => {
      await repo.lockFiscal(tx, companyId);
      if (input.cuit !== undefined) {
        const cuit = normalizeCuit(input.cuit);
        if (!cuit) {
          throw new AppError('validation_failed', `"${input.cuit}" is not a valid CUIT`, {
            details: [{ path: '/cuit', message: '11 digits with a valid check digit' }],
          });
        }
        if (await repo.cuitTakenByOther(tx, companyId, cuit)) throw new CuitUnavailable();
        await repo.setCompanyCuit(tx, companyId, cuit);
      }
      const current = await repo.findFiscal(tx, companyId, { forUpdate: true });
      if (input.points_of_sale !== undefined) {
        const numbers = [...new Set(input.points_of_sale)].sort((a, b) => a - b);
        const known = new Map((await repo.listPointsOfSale(tx, companyId)).map((p) => [p.number, p]));
        await repo.replacePointsOfSale(
          tx,
          companyId,
          numbers.map((n) => ({
            number: n,
            emissionType: known.get(n)?.emissionType ?? null,
            blocked: known.get(n)?.blocked ?? false,
          })),
        );
      }
      const pointRows = await repo.listPointsOfSale(tx, companyId);
      const points = pointRows.map((p) => p.number);
      const caePoints = pointRows.filter((p) => !isCaeaPoint(p)).map((p) => p.number);
      const defaultPoint =
        input.default_point_of_sale === undefined ? (current?.defaultPointOfSale ?? null) : input.default_point_of_sale;
      if (defaultPoint !== null && !points.includes(defaultPoint)) {
        throw new AppError(
          'validation_failed',
          `point of sale ${defaultPoint} is not one of the company's (${points.join(', ') || 'none'})`,
          {
            details: [{ path: '/default_point_of_sale', message: 'one of points_of_sale' }],
          },
        );
      }
      if (input.activity_start && !/^\d{4}-\d{2}-\d{2}$/.test(input.activity_start)) {
        throw new AppError('validation_failed', 'activity_start must be yyyy-mm-dd', {
          details: [{ path: '/activity_start', message: 'yyyy-mm-dd' }],
        });
      }
      const patch: repo.FiscalPatch = {};
      if (input.iva_condition !== undefined) patch.ivaCondition = input.iva_condition;
      if (input.legal_name !== undefined) patch.legalName = input.legal_name?.trim() || null;
      if (input.address !== undefined) patch.address = input.address?.trim() || null;
      if (input.gross_income !== undefined) patch.grossIncome = input.gross_income?.trim() || null;
      if (input.activity_start !== undefined) patch.activityStart = input.activity_start || null;
      if (input.auth_mode !== undefined) patch.authMode = input.auth_mode;
      if (input.caea_enabled !== undefined) patch.caeaEnabled = input.caea_enabled;
      if (input.caea_point_of_sale !== undefined) patch.caeaPointOfSale = input.caea_point_of_sale;
      const caeaPoint = input.caea_point_of_sale === undefined ? (current?.caeaPointOfSale ?? null) : input.caea_point_of_sale;
      const caeaOn = input.caea_enabled ?? current?.caeaEnabled ?? false;
      if (caeaOn && caeaPoint === null) {
        throw new AppError('validation_failed', 'CAEA needs its point of sale (of type CAEA in ARCA)', {
          details: [{ path: '/caea_point_of_sale', message: 'required when caea_enabled' }],
        });
      }
      if (caeaPoint !== null && (caeaPoint === defaultPoint || caePoints.includes(caeaPoint))) {
        throw new AppError(
          'validation_failed',
          `point of sale ${caeaPoint} asks for CAEs; the CAEA one must be another (ARCA: of type CAEA)`,
          {
            details: [{ path: '/caea_point_of_sale', message: 'not one of the CAE points of sale' }],
          },
        );
      }
      if (input.caea_register_point_of_sale !== undefined) patch.caeaRegisterPointOfSale = input.caea_register_point_of_sale;
      const registerPoint =
        input.caea_register_point_of_sale === undefined
          ? (current?.caeaRegisterPointOfSale ?? null)
          : input.caea_register_point_of_sale;
      if (registerPoint !== null) {
        const path = '/caea_register_point_of_sale';
        if (caeaPoint === null) {
          throw new AppError('validation_failed', "the registers' CAEA point of sale needs the CAEA point of sale too", {
            details: [{ path, message: 'needs caea_point_of_sale' }],
          });
        }
        if (registerPoint === caeaPoint) {
          throw new AppError(
            'validation_failed',
            `point of sale ${registerPoint} is already the CAEA point of sale; the registers' one must be another`,
            { details: [{ path, message: 'not the same as caea_point_of_sale' }] },
          );
        }
        if (registerPoint === defaultPoint || caePoints.includes(registerPoint)) {
          throw new AppError(
            'validation_failed',
            `point of sale ${registerPoint} asks for CAEs; the registers' CAEA one must be another (ARCA: of type CAEA)`,
            { details: [{ path, message: 'not one of the CAE points of sale' }] },
          );
        }
      }
      if (input.environment !== undefined) patch.environment = input.environment;
      patch.defaultPointOfSale = defaultPoint ?? points[0] ?? null;
      await repo.upsertFiscal(tx, companyId, patch, clock.now());
      const { cuit, ...rest } = input;
      await recordAudit(tx, {
        action: 'fiscal.updated',
        ...auditBy(ctx),
        details: { ...rest, ...(cuit !== undefined ? { cuit: normalizeCuit(cuit) } : {}) },
      });
    });
  }

  /** Refuses a CUIT another company has without naming it, and leaves the claim for the operator. */
  async function refuseCuit(ctx: CompanyCtx, cuit: string): Promise<never> {
    const userId = ctx.actor.kind === 'user' ? ctx.actor.userId : null;
    await orm.transaction(async (tx) => {
      await recordCuitClaim(tx, ctx.companyId, cuit, userId, clock.now());
      await recordAudit(tx, { action: 'fiscal.cuit_unavailable', ...auditBy(ctx), details: { cuit } });
    });
    throw new AppError('cuit_unavailable', `CUIT ${cuit} cannot be used in this company; write to support`, {
      details: [{ path: '/cuit', message: 'unavailable' }],
    });
  }

  return {
    get: setupWire,

    async update(ctx: CompanyCtx, input: FiscalUpdate) {
      const { companyId } = ctx;
      try {
        await updateInTransaction(ctx, input);
      } catch (err) {
        const cuit = input.cuit === undefined ? null : normalizeCuit(input.cuit);
        if (!cuit || !(err instanceof CuitUnavailable || isUniqueViolation(err))) throw err;
        await refuseCuit(ctx, cuit);
      }
      return setupWire(companyId);
    },

    /** A key made here and its CSR to upload to ARCA; the key waits, sealed, for the certificate. */
    async createCsr(ctx: CompanyCtx, input: { organization?: string | undefined; common_name?: string | undefined }) {
      const company = await repo.findCompany(orm, ctx.companyId);
      if (!company?.cuit) throw new AppError('invalid_state', 'set the company CUIT before generating a CSR');
      const { keyPem } = generateKeyPair();
      const csrPem = createCsr({
        keyPem,
        cuit: company.cuit,
        organization: input.organization?.trim() || company.name,
        commonName: (input.common_name?.trim() || `mostrador-${company.cuit}`).slice(0, 64),
      });
      await orm.transaction(async (tx) => {
        await repo.lockFiscal(tx, ctx.companyId);
        await repo.upsertFiscal(
          tx,
          ctx.companyId,
          { pendingKeySealed: cipher.encrypt(keyPem), pendingCsrPem: csrPem },
          clock.now(),
        );
        await recordAudit(tx, { action: 'fiscal.csr_created', ...auditBy(ctx), details: { cuit: company.cuit } });
      });
      return { csr: csrPem };
    },

    /** The company's certificate, with its key (or the key of the last CSR generated here). */
    async uploadCertificate(ctx: CompanyCtx, input: { certificate: string; private_key?: string | undefined }) {
      const company = await repo.findCompany(orm, ctx.companyId);
      if (!company?.cuit) throw new AppError('invalid_state', 'set the company CUIT before uploading a certificate');
      let info: ReturnType<typeof describeCertificate>;
      try {
        info = describeCertificate(input.certificate);
      } catch {
        throw new AppError('validation_failed', 'certificate is not a PEM X.509 certificate', {
          details: [
            { path: '/certificate', message: 'PEM certificate (-----BEGIN CERTIFICATE-----)', reason: 'not_a_certificate' },
          ],
        });
      }
      if (info.cuit !== null && info.cuit !== company.cuit) {
        throw new AppError('validation_failed', `the certificate is for CUIT ${info.cuit}, not the company's ${company.cuit}`, {
          details: [{ path: '/certificate', message: 'serialNumber CUIT mismatch', reason: 'certificate_other_cuit' }],
        });
      }
      if (info.notAfter.getTime() <= clock.now().getTime()) {
        throw new AppError('validation_failed', `the certificate expired on ${info.notAfter.toISOString()}`, {
          details: [{ path: '/certificate', message: 'expired', reason: 'certificate_expired' }],
        });
      }
      await orm.transaction(async (tx) => {
        await repo.lockFiscal(tx, ctx.companyId);
        const row = await repo.findFiscal(tx, ctx.companyId, { forUpdate: true });
        const keyPem = input.private_key ?? (row?.pendingKeySealed ? cipher.decrypt(row.pendingKeySealed) : null);
        if (!keyPem) {
          throw new AppError('validation_failed', 'send private_key, or generate the CSR here first', {
            details: [{ path: '/private_key', message: 'required', reason: 'private_key_missing' }],
          });
        }
        let matches = false;
        try {
          matches = keyMatchesCertificate(keyPem, input.certificate);
        } catch {
          matches = false;
        }
        if (!matches) {
          throw new AppError('validation_failed', 'the private key does not belong to the certificate', {
            details: [
              {
                path: input.private_key ? '/private_key' : '/certificate',
                message: 'key and certificate do not match',
                reason: 'key_mismatch',
              },
            ],
          });
        }
        await repo.upsertFiscal(
          tx,
          ctx.companyId,
          {
            certPem: input.certificate.trim(),
            keySealed: cipher.encrypt(keyPem),
            authMode: 'own_certificate',
            ...(input.private_key ? {} : { pendingKeySealed: null, pendingCsrPem: null }),
          },
          clock.now(),
        );
        await recordAudit(tx, {
          action: 'fiscal.certificate_uploaded',
          ...auditBy(ctx),
          details: { subject: info.subject, not_after: info.notAfter.toISOString(), fingerprint: info.fingerprint },
        });
      });
      return setupWire(ctx.companyId);
    },

    /**
     * "Probar conexión": FEDummy, a login, and FEParamGetPtosVenta (whose web-service points of sale
     * replace the stored ones). Each step says in Spanish what went wrong.
     */
    async check(ctx: CompanyCtx): Promise<FiscalCheck> {
      const company = await repo.findCompany(orm, ctx.companyId);
      const row = await repo.findFiscal(orm, ctx.companyId);
      const steps: FiscalCheck['steps'] = [];
      const finish = async () => {
        const result = { ok: steps.every((s) => s.ok), steps };
        await repo.upsertFiscal(orm, ctx.companyId, { lastCheck: result, lastCheckAt: clock.now() }, clock.now());
        return result;
      };
      if (!company?.cuit || !row) {
        steps.push({ step: 'datos', ok: false, message: 'Falta cargar el CUIT y la condición frente al IVA de la empresa.' });
        return finish();
      }
      let credentials: ArcaCredentials;
      try {
        credentials = await credentialsOf(row, company.cuit);
      } catch {
        steps.push({
          step: 'certificado',
          ok: false,
          message:
            row.authMode === 'own_certificate'
              ? 'Falta el certificado de la empresa: subilo o generá el CSR en esta pantalla.'
              : 'El servicio no tiene certificado propio configurado: subí el certificado de la empresa.',
        });
        return finish();
      }
      const session = await arca.session(credentials);
      try {
        const dummy = await session.wsfe.dummy();
        const down = Object.entries({
          aplicación: dummy.appServer,
          'base de datos': dummy.dbServer,
          autenticación: dummy.authServer,
        })
          .filter(([, v]) => v !== 'OK')
          .map(([k]) => k);
        steps.push({
          step: 'FEDummy',
          ok: down.length === 0,
          message: down.length === 0 ? 'Los servidores de ARCA responden.' : `ARCA informa problemas en: ${down.join(', ')}.`,
        });
        if (down.length > 0) return finish();
      } catch (err) {
        steps.push({ step: 'FEDummy', ok: false, message: explainTransport(err, 'el servicio de facturación (WSFEv1)') });
        return finish();
      }
      let auth: Awaited<ReturnType<typeof session.auth>>;
      try {
        auth = await session.auth();
        steps.push({ step: 'login', ok: true, message: 'El certificado inicia sesión en ARCA (WSAA).' });
      } catch (err) {
        steps.push({ step: 'login', ok: false, message: explainLogin(err) });
        return finish();
      }
      try {
        const points = await session.wsfe.pointsOfSale(auth);
        const usable = points.filter((p) => !p.blocked && p.removedOn === null && !isCaeaPoint({ emissionType: p.emissionType }));
        await orm.transaction(async (tx) => {
          await repo.lockFiscal(tx, ctx.companyId);
          await repo.replacePointsOfSale(
            tx,
            ctx.companyId,
            points
              .filter((p) => p.removedOn === null)
              .map((p) => ({ number: p.number, emissionType: p.emissionType, blocked: p.blocked })),
          );
          const current = await repo.findFiscal(tx, ctx.companyId, { forUpdate: true });
          const keep = usable.some((p) => p.number === current?.defaultPointOfSale);
          await repo.upsertFiscal(
            tx,
            ctx.companyId,
            { defaultPointOfSale: keep ? current!.defaultPointOfSale : (usable[0]?.number ?? null) },
            clock.now(),
          );
        });
        steps.push(
          usable.length > 0
            ? {
                step: 'puntos de venta',
                ok: true,
                message: `Puntos de venta web service en ARCA: ${usable.map((p) => p.number).join(', ')}.`,
              }
            : {
                step: 'puntos de venta',
                ok: false,
                message:
                  'ARCA no tiene puntos de venta web service habilitados para este CUIT. Creá uno en ARCA → "Administración de puntos de venta y domicilios", sistema "Factura Electrónica - Monotributo/RI - Web Services".',
              },
        );
      } catch (err) {
        steps.push({ step: 'puntos de venta', ok: false, message: explainService(err) });
      }
      return finish();
    },

    /** The issuer's data a printout carries (no certificate, no ARCA call). */
    async issuer(companyId: number): Promise<PrintIssuer> {
      const [company, row] = await Promise.all([repo.findCompany(orm, companyId), repo.findFiscal(orm, companyId)]);
      return {
        companyName: company?.name ?? '',
        legalName: row?.legalName ?? null,
        cuit: company?.cuit ?? null,
        address: row?.address ?? null,
        grossIncome: row?.grossIncome ?? null,
        activityStart: row?.activityStart ?? null,
        ivaCondition: row?.ivaCondition ?? null,
      };
    },

    /** The setup for issuing, or 422 saying what is missing. */
    async ready(companyId: number): Promise<FiscalReady> {
      const company = await repo.findCompany(orm, companyId);
      const row = await repo.findFiscal(orm, companyId);
      const points = await repo.listPointsOfSale(orm, companyId);
      const missing = missingOf(row, company?.cuit ?? null, points.length, arca.delegationAvailable);
      if (!company || !row || !company.cuit || missing.length > 0) {
        throw new AppError('fiscal_setup_incomplete', `the company cannot invoice yet: missing ${missing.join('; ')}`, {
          details: missing.map((m) => ({ path: '/fiscal', message: m })),
        });
      }
      return {
        companyName: company.name,
        cuit: company.cuit,
        ivaCondition: row.ivaCondition,
        legalName: row.legalName ?? company.name,
        address: row.address,
        grossIncome: row.grossIncome,
        activityStart: row.activityStart,
        environment: row.environment,
        defaultPointOfSale: row.defaultPointOfSale,
        pointsOfSale: points
          .filter(
            (p) => !p.blocked && !isCaeaPoint(p) && p.number !== row.caeaPointOfSale && p.number !== row.caeaRegisterPointOfSale,
          )
          .map((p) => p.number),
        caea: {
          enabled: row.caeaEnabled,
          pointOfSale: row.caeaPointOfSale,
          registerPointOfSale: row.caeaRegisterPointOfSale ?? row.caeaPointOfSale,
        },
        credentials: await credentialsOf(row, company.cuit),
      };
    },
  };
}

/** A transport failure in Spanish. */
export function explainTransport(err: unknown, what: string): string {
  if (err instanceof ArcaTransportError) {
    if (err.kind === 'timeout') return `ARCA no respondió a tiempo (${what}). Puede estar caído; probá de nuevo en unos minutos.`;
    if (err.kind === 'network') return `No se pudo conectar con ARCA (${what}). Revisá la conexión a internet del servidor.`;
    return `ARCA respondió con un error HTTP ${err.status ?? ''} (${what}). Probá de nuevo en unos minutos.`;
  }
  return `Falló la llamada a ARCA (${what}): ${err instanceof Error ? err.message : String(err)}`;
}

function explainLogin(err: unknown): string {
  if (err instanceof ArcaFaultError) {
    const known: Record<string, string> = {
      'coe.alreadyAuthenticated':
        'ARCA ya entregó un ticket de acceso para este certificado que Mostrador no tiene guardado; se puede pedir otro en unos minutos.',
      'cms.cert.untrusted': 'ARCA no reconoce el certificado: ¿es de este ambiente (homologación o producción)?',
      'cms.cert.expired': 'El certificado venció: generá uno nuevo en ARCA y subilo.',
      'coe.notAuthorized':
        'El certificado no está autorizado para el servicio "Facturación Electrónica" (wsfe). Asocialo en ARCA.',
      'xml.generationTime.invalid': 'ARCA rechazó la hora del pedido: revisá el reloj del servidor.',
      'xml.expirationTime.expired': 'ARCA rechazó la hora del pedido: revisá el reloj del servidor.',
      'wsn.unavailable': 'El servicio de facturación de ARCA no está disponible. Probá en unos minutos.',
      'wsaa.unavailable': 'El servicio de autenticación de ARCA no está disponible. Probá en unos minutos.',
    };
    return known[err.faultCode] ?? `ARCA rechazó el inicio de sesión: ${err.faultString}`;
  }
  if (err instanceof ArcaTransportError) return explainTransport(err, 'la autenticación (WSAA)');
  if (err instanceof Error && err.name === 'ArcaTicketUnavailableError') return err.message;
  return `No se pudo iniciar sesión en ARCA: ${err instanceof Error ? err.message : String(err)}`;
}

function explainService(err: unknown): string {
  if (err instanceof ArcaServiceError) {
    if (err.code === 600) return 'ARCA no aceptó el ticket de acceso. Probá de nuevo en unos minutos.';
    if (err.code === 601) {
      return 'El CUIT de la empresa no figura entre los que puede representar el certificado: revisá la delegación en el Administrador de Relaciones de ARCA (si la hiciste recién, esperá y probá de nuevo).';
    }
    return `ARCA respondió con el error ${err.code}: ${err.message}`;
  }
  return explainTransport(err, 'los puntos de venta');
}
