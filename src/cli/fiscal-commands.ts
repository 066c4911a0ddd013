import { readFileSync } from 'node:fs';
import { cliCtx } from '../http/request-context.ts';
import type { FiscalUpdate } from '../modules/invoicing/fiscal.service.ts';
import type { Container } from '../container.ts';
import { parseOptions, positiveInt, UsageError } from './args.ts';
import { type Command, define } from './command.ts';

async function requireCompany(container: Container, companyId: number) {
  const company = await container.companies.findCompany(companyId);
  if (!company) throw new UsageError(`company ${companyId} does not exist`);
}

/** A point of sale option that `none` clears. */
function pointOrNone(value: string | undefined, name: string): number | null | undefined {
  if (value === undefined) return undefined;
  return value === 'none' ? null : positiveInt(value, name);
}

type Setup = Awaited<ReturnType<Container['invoicing']['fiscal']['get']>>;

function describe(setup: Setup): string {
  return [
    `Empresa: ${setup.company_name} · CUIT ${setup.cuit ?? '(sin CUIT)'}`,
    `Condición frente al IVA: ${setup.iva_condition ?? '(sin cargar)'} · ambiente: ${setup.environment} · conexión: ${setup.auth_mode === 'delegation' ? `delegación en ${setup.service_cuit ?? '(el servicio no tiene certificado)'}` : 'certificado propio'}`,
    `Puntos de venta: ${setup.points_of_sale.map((p) => p.number).join(', ') || '(ninguno)'} · por defecto: ${setup.default_point_of_sale ?? '-'}`,
    `Contingencia CAEA: ${
      setup.caea_enabled
        ? `sí, punto de venta ${setup.caea_point_of_sale}${setup.caea_register_point_of_sale === null ? '' : ` (cajas: ${setup.caea_register_point_of_sale})`}`
        : 'no'
    }`,
    setup.certificate ? `Certificado: ${setup.certificate.subject}, vence ${setup.certificate.not_after}` : null,
    setup.ready ? 'Lista para facturar.' : `Falta: ${setup.missing.join('; ')}`,
  ]
    .filter(Boolean)
    .join('\n');
}

type CaeaStatus = Awaited<ReturnType<Container['invoicing']['caea']['status']>>;

function describeCaea(s: CaeaStatus): string {
  const one = (name: string, f: CaeaStatus['current']) =>
    `${name} (${f.period}/${f.fortnight}): ${f.caea ? `${f.caea}, vigente ${f.valid_from} a ${f.valid_to}, informar hasta ${f.inform_by}` : 'sin CAEA'}`;
  return [
    `Contingencia CAEA: ${s.enabled ? `sí, punto de venta ${s.point_of_sale}` : 'no'}`,
    one('Quincena actual', s.current),
    one('Próxima quincena', s.next),
    `Pendientes de informar: ${s.to_inform.length}`,
    s.alerts.length ? `Avisos: ${s.alerts.join(', ')}` : null,
  ]
    .filter(Boolean)
    .join('\n');
}

const ENUMS = {
  'iva-condition': ['responsable_inscripto', 'monotributo', 'exento'],
  'auth-mode': ['delegation', 'own_certificate'],
  environment: ['homologacion', 'produccion'],
} as const;

function oneOf<K extends keyof typeof ENUMS>(name: K, value: string | undefined): (typeof ENUMS)[K][number] | undefined {
  if (value === undefined) return undefined;
  if (!(ENUMS[name] as readonly string[]).includes(value))
    throw new UsageError(`--${name} must be one of ${ENUMS[name].join(', ')}`);
  return value as (typeof ENUMS)[K][number];
}

/** The company's fiscal setup for ARCA invoicing: show, set, upload a certificate, check the connection. */
export const FISCAL_COMMANDS: Command[] = [
  define({
    words: ['fiscal', 'show'],
    parse: (args) => {
      const o = parseOptions(args, { company: { type: 'string' } });
      return { companyId: positiveInt(o.company, 'company'), json: o.json };
    },
    async run(container, { companyId }) {
      await requireCompany(container, companyId);
      const setup = await container.invoicing.fiscal.get(companyId);
      return { json: { fiscal: setup }, text: describe(setup) };
    },
  }),
  define({
    words: ['fiscal', 'set'],
    parse: (args) => {
      const o = parseOptions(args, {
        company: { type: 'string' },
        cuit: { type: 'string' },
        'iva-condition': { type: 'string' },
        'legal-name': { type: 'string' },
        address: { type: 'string' },
        'gross-income': { type: 'string' },
        'activity-start': { type: 'string' },
        'auth-mode': { type: 'string' },
        environment: { type: 'string' },
        'points-of-sale': { type: 'string' },
        'default-point-of-sale': { type: 'string' },
        caea: { type: 'string' },
        'caea-point-of-sale': { type: 'string' },
        'caea-register-point-of-sale': { type: 'string' },
      });
      if (o.caea !== undefined && o.caea !== 'on' && o.caea !== 'off') throw new UsageError('--caea must be on or off');
      const update: FiscalUpdate = {
        cuit: o.cuit,
        iva_condition: oneOf('iva-condition', o['iva-condition']),
        legal_name: o['legal-name'],
        address: o.address,
        gross_income: o['gross-income'],
        activity_start: o['activity-start'],
        auth_mode: oneOf('auth-mode', o['auth-mode']),
        environment: oneOf('environment', o.environment),
        points_of_sale: o['points-of-sale']?.split(',').map((p) => positiveInt(p.trim(), 'points-of-sale')),
        default_point_of_sale:
          o['default-point-of-sale'] === undefined ? undefined : positiveInt(o['default-point-of-sale'], 'default-point-of-sale'),
        caea_enabled: o.caea === undefined ? undefined : o.caea === 'on',
        caea_point_of_sale:
          o['caea-point-of-sale'] === undefined ? undefined : positiveInt(o['caea-point-of-sale'], 'caea-point-of-sale'),
        caea_register_point_of_sale: pointOrNone(o['caea-register-point-of-sale'], 'caea-register-point-of-sale'),
      };
      return { companyId: positiveInt(o.company, 'company'), update, json: o.json };
    },
    async run(container, { companyId, update }) {
      await requireCompany(container, companyId);
      const setup = await container.invoicing.fiscal.update(cliCtx(companyId), update);
      return { json: { fiscal: setup }, text: describe(setup) };
    },
  }),
  define({
    words: ['fiscal', 'certificate'],
    parse: (args) => {
      const o = parseOptions(args, { company: { type: 'string' }, cert: { type: 'string' }, key: { type: 'string' } });
      if (!o.cert) throw new UsageError('--cert is required (a PEM file)');
      return { companyId: positiveInt(o.company, 'company'), cert: o.cert, key: o.key, json: o.json };
    },
    async run(container, { companyId, cert, key }) {
      await requireCompany(container, companyId);
      const setup = await container.invoicing.fiscal.uploadCertificate(cliCtx(companyId), {
        certificate: readFileSync(cert, 'utf8'),
        private_key: key ? readFileSync(key, 'utf8') : undefined,
      });
      return { json: { fiscal: setup }, text: describe(setup) };
    },
  }),
  define({
    words: ['fiscal', 'check'],
    parse: (args) => {
      const o = parseOptions(args, { company: { type: 'string' } });
      return { companyId: positiveInt(o.company, 'company'), json: o.json };
    },
    async run(container, { companyId }) {
      await requireCompany(container, companyId);
      const check = await container.invoicing.fiscal.check(cliCtx(companyId));
      return {
        json: { check },
        text: check.steps.map((s) => `${s.ok ? '✓' : '✗'} ${s.step}: ${s.message}`).join('\n'),
      };
    },
  }),
  define({
    words: ['caea', 'status'],
    parse: (args) => {
      const o = parseOptions(args, { company: { type: 'string' } });
      return { companyId: positiveInt(o.company, 'company'), json: o.json };
    },
    async run(container, { companyId }) {
      await requireCompany(container, companyId);
      const status = await container.invoicing.caea.status(cliCtx(companyId));
      return { json: { caea: status }, text: describeCaea(status) };
    },
  }),
  define({
    words: ['caea', 'request'],
    parse: (args) => {
      const o = parseOptions(args, { company: { type: 'string' } });
      return { companyId: positiveInt(o.company, 'company'), json: o.json };
    },
    async run(container, { companyId }) {
      await requireCompany(container, companyId);
      const status = await container.invoicing.caea.obtainNow(cliCtx(companyId));
      return { json: { caea: status }, text: describeCaea(status) };
    },
  }),
  define({
    words: ['caea', 'inform'],
    parse: (args) => {
      const o = parseOptions(args, { company: { type: 'string' } });
      return { companyId: positiveInt(o.company, 'company'), json: o.json };
    },
    async run(container, { companyId }) {
      await requireCompany(container, companyId);
      const r = await container.invoicing.caea.informAll(companyId);
      const status = await container.invoicing.caea.status(cliCtx(companyId));
      return {
        json: { ...r, caea: status },
        text: `Informados: ${r.informed} · sin informar: ${r.failed}\n${describeCaea(status)}`,
      };
    },
  }),
  define({
    words: ['invoice', 'issue'],
    parse: (args) => {
      const o = parseOptions(args, {
        company: { type: 'string' },
        sale: { type: 'string' },
        'doc-type': { type: 'string' },
        'doc-number': { type: 'string' },
        'iva-condition': { type: 'string' },
        name: { type: 'string' },
        'point-of-sale': { type: 'string' },
      });
      const docType = o['doc-type'];
      if (docType !== undefined && !['cuit', 'cuil', 'dni'].includes(docType))
        throw new UsageError('--doc-type must be cuit, cuil or dni');
      return {
        companyId: positiveInt(o.company, 'company'),
        saleId: positiveInt(o.sale, 'sale'),
        buyer: {
          doc_type: docType as 'cuit' | 'cuil' | 'dni' | undefined,
          doc_number: o['doc-number'],
          iva_condition: o['iva-condition'] === undefined ? undefined : positiveInt(o['iva-condition'], 'iva-condition'),
          name: o.name,
        },
        pointOfSale: o['point-of-sale'] === undefined ? undefined : positiveInt(o['point-of-sale'], 'point-of-sale'),
        json: o.json,
      };
    },
    async run(container, { companyId, saleId, buyer, pointOfSale }) {
      await requireCompany(container, companyId);
      const { invoice, created } = await container.invoicing.invoicing.issue(cliCtx(companyId), saleId, {
        buyer,
        point_of_sale: pointOfSale,
      });
      return {
        json: { invoice, created },
        text: `${created ? 'Emitida' : 'Ya estaba emitida'}: ${invoice.receipt} · CAE ${invoice.cae} (vence ${invoice.cae_expiration.slice(0, 10)}) · total ${invoice.total}`,
      };
    },
  }),
];
