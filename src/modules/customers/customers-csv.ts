import type { Database } from '../../db/client.ts';
import { MONEY_DECIMALS, roundsToZeroAt } from '../../lib/precision.ts';
import { idBlock } from '../../db/ids.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { moneyToNumber } from '../../lib/money.ts';
import {
  formatAmount,
  type ImportError,
  type ImportReport,
  normaliseHeader,
  parseAmount,
  parseBoolean,
  readSpreadsheet,
  unguardCell,
  writeSpreadsheet,
} from '../../lib/spreadsheet.ts';
import type { Clock } from '../../lib/time.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import { RECEIVER_CONDITIONS } from '../../lib/arca-codes.ts';
import { checkFiscalRules, DOCUMENT_TYPES, type DocumentType } from './customer-fields.ts';
import * as repo from './customers.repo.ts';
import { type CustomerFields, newCustomerValues, toValues } from './customers.service.ts';

type Field =
  | 'id'
  | 'name'
  | 'document_type'
  | 'document'
  | 'cuit'
  | 'dni'
  | 'iva_condition'
  | 'street'
  | 'city'
  | 'province'
  | 'postal_code'
  | 'email'
  | 'phone'
  | 'notes'
  | 'account_enabled'
  | 'credit_limit'
  | 'enabled';

/** Spanish and English headers → the field each column fills (a `cuit` or `dni` column is a document of that type). */
const HEADERS: Record<string, Field> = {
  id: 'id',
  nombre: 'name',
  name: 'name',
  cliente: 'name',
  razon_social: 'name',
  tipo_documento: 'document_type',
  tipo_doc: 'document_type',
  tipo_de_documento: 'document_type',
  document_type: 'document_type',
  documento: 'document',
  nro_documento: 'document',
  numero_documento: 'document',
  document: 'document',
  cuit: 'cuit',
  cuil: 'cuit',
  dni: 'dni',
  condicion_iva: 'iva_condition',
  condicion_frente_al_iva: 'iva_condition',
  iva: 'iva_condition',
  iva_condition: 'iva_condition',
  calle: 'street',
  direccion: 'street',
  domicilio: 'street',
  street: 'street',
  address: 'street',
  ciudad: 'city',
  localidad: 'city',
  city: 'city',
  provincia: 'province',
  province: 'province',
  codigo_postal: 'postal_code',
  cp: 'postal_code',
  postal_code: 'postal_code',
  email: 'email',
  mail: 'email',
  correo: 'email',
  e_mail: 'email',
  telefono: 'phone',
  tel: 'phone',
  celular: 'phone',
  whatsapp: 'phone',
  phone: 'phone',
  notas: 'notes',
  observaciones: 'notes',
  notes: 'notes',
  cuenta_corriente: 'account_enabled',
  account_enabled: 'account_enabled',
  limite_credito: 'credit_limit',
  limite_de_credito: 'credit_limit',
  credit_limit: 'credit_limit',
  activo: 'enabled',
  enabled: 'enabled',
  habilitado: 'enabled',
};

/** The export's header line (Spanish, the import's own names). */
export const CUSTOMER_EXPORT_HEADERS = [
  'id',
  'nombre',
  'tipo_documento',
  'documento',
  'condicion_iva',
  'calle',
  'ciudad',
  'provincia',
  'codigo_postal',
  'email',
  'telefono',
  'notas',
  'cuenta_corriente',
  'limite_credito',
  'activo',
] as const;

const mapHeaders = (headers: string[]) => headers.map((h) => HEADERS[normaliseHeader(h)] ?? null);

/** Each condition by its ARCA code, its name and the abbreviations people use. */
const CONDITION_NAMES = new Map<string, number>([
  ...Object.entries(RECEIVER_CONDITIONS).map(([code, name]) => [normaliseHeader(name), Number(code)] as [string, number]),
  ['responsable_inscripto', 1],
  ['ri', 1],
  ['exento', 4],
  ['consumidor_final', 5],
  ['cf', 5],
  ['monotributo', 6],
  ['monotributista', 6],
  ['no_categorizado', 7],
]);

/** `5`, `Consumidor Final`, `RI`, `Monotributo`… → the ARCA code; null when none. */
export function parseIvaCondition(raw: string): number | null {
  if (/^\d{1,2}$/.test(raw.trim())) {
    const code = Number(raw.trim());
    return code in RECEIVER_CONDITIONS ? code : null;
  }
  return CONDITION_NAMES.get(normaliseHeader(raw).replace(/^iva_/, '')) ?? CONDITION_NAMES.get(normaliseHeader(raw)) ?? null;
}

/** A row as the API's fields, and what was wrong with its cells. */
function parseRow(cells: string[], fields: (Field | null)[], headers: string[], separator: ';' | ',', line: number) {
  const row: CustomerFields & { id?: number } = {};
  const errors: ImportError[] = [];
  const fail = (i: number, message: string) => errors.push({ line, column: headers[i]!, message });
  const address: NonNullable<CustomerFields['address']> = {};
  fields.forEach((field, i) => {
    if (field === null) return;
    // The export put an apostrophe before text a spreadsheet would run as a formula (+549…): take it back.
    const raw = unguardCell((cells[i] ?? '').trim());
    const text = raw === '' ? null : raw;
    switch (field) {
      case 'id':
        if (raw === '') break;
        if (/^\d{1,9}$/.test(raw) && Number(raw) > 0) row.id = Number(raw);
        else fail(i, `id inválido: "${raw}" (el número que da la exportación, o vacío)`);
        break;
      case 'name':
        if (text !== null) row.name = text;
        break;
      case 'document_type': {
        if (text === null) break;
        const type = normaliseHeader(text).replace(/^passport$/, 'pasaporte') as DocumentType;
        if (DOCUMENT_TYPES.includes(type)) row.document_type = type;
        else fail(i, `tipo de documento inválido: "${raw}" (cuit, cuil, dni o pasaporte)`);
        break;
      }
      case 'document':
        row.document = text;
        break;
      case 'cuit':
      case 'dni':
        if (text === null) break;
        row.document = text;
        row.document_type ??= field;
        break;
      case 'iva_condition': {
        if (text === null) break;
        const code = parseIvaCondition(text);
        if (code === null)
          fail(
            i,
            `condición frente al IVA inválida: "${raw}" (por ejemplo Consumidor Final, Responsable Inscripto, Monotributo o su código de ARCA)`,
          );
        else row.iva_condition = code;
        break;
      }
      case 'street':
      case 'city':
      case 'province':
      case 'postal_code':
        address[field] = text;
        break;
      case 'email':
      case 'phone':
      case 'notes':
        row[field] = text;
        break;
      case 'account_enabled':
      case 'enabled': {
        if (text === null) break;
        const value = parseBoolean(text);
        if (value === null) fail(i, `${headers[i]!.trim()} debe ser sí o no (dice "${raw}")`);
        else row[field] = value;
        break;
      }
      case 'credit_limit': {
        if (text === null) {
          row.credit_limit = null;
          break;
        }
        const value = parseAmount(text, separator);
        if (value === null || value < 0) fail(i, `límite de crédito inválido: "${raw}" (usá 1.234,56, o vacío para ninguno)`);
        else if (roundsToZeroAt(value, MONEY_DECIMALS))
          fail(i, `límite de crédito inválido: "${raw}" queda en $ 0 (se guardan centavos)`);
        else row.credit_limit = value;
        break;
      }
    }
  });
  if (Object.keys(address).length > 0) row.address = address;
  return { row, errors };
}

/** A refused field in the owner's words, from the refusal's `details` (never its English message). */
function fieldProblem(err: AppError, row: CustomerFields): ImportError['message'] {
  const detail = err.details?.[0];
  switch (detail?.message) {
    case 'wrong_check_digit':
      return `el ${row.document_type?.toUpperCase() ?? 'CUIT'} ${row.document} tiene mal el dígito verificador: el último debería ser ${detail.expected}`;
    case 'wrong_length':
    case 'invalid_cuit':
      return `el ${row.document_type?.toUpperCase() ?? 'CUIT'} "${row.document}" no es válido (11 dígitos, con o sin guiones)`;
    case 'not_a_dni':
      return `el DNI "${row.document}" no es válido (7 u 8 dígitos)`;
    case 'not_a_passport':
      return `el pasaporte "${row.document}" no es válido (letras y números)`;
    case 'not_a_phone':
      return `el teléfono "${row.phone}" no es un número de teléfono`;
    case 'not_an_email':
      return `el email "${row.email}" no es válido`;
    case 'cuit_required':
      return 'esa condición frente al IVA necesita un CUIT (tipo_documento cuit)';
    case 'required':
      return detail.path === '/document'
        ? 'falta el número de documento'
        : 'falta el tipo de documento (cuit, cuil, dni o pasaporte)';
    default:
      return 'hay un dato inválido';
  }
}

/** The fields whose column a refusal's path points at, and the export's name when the file has none of them. */
const COLUMN_OF: Record<string, { fields: Field[]; fallback: string }> = {
  '/document': { fields: ['document', 'cuit', 'dni'], fallback: 'documento' },
  '/document_type': { fields: ['document_type', 'cuit', 'dni', 'document'], fallback: 'tipo_documento' },
  '/phone': { fields: ['phone'], fallback: 'telefono' },
  '/email': { fields: ['email'], fallback: 'email' },
  '/name': { fields: ['name'], fallback: 'nombre' },
  '/iva_condition': { fields: ['iva_condition'], fallback: 'condicion_iva' },
};

/** The file's own header of the column a refusal points at (null when it names no column). */
function columnFor(path: string | undefined, fields: (Field | null)[], header: string[]): string | null {
  const column = COLUMN_OF[path ?? ''];
  if (!column) return null;
  const index = fields.findIndex((field) => field !== null && column.fields.includes(field));
  return index >= 0 ? header[index]!.trim() : column.fallback;
}

class DryRun extends Error {}

export type CustomerImport = ReturnType<typeof createCustomerImport>;

/**
 * Spreadsheet import and export of the customers, like the catalogue's (same encodings, same
 * report, same formula-cell guard). A row is matched by the export's id, then by its document;
 * otherwise it creates a customer (a name is then required). Rows with errors are skipped and
 * reported with their line and column; the others apply in one transaction (a dry run rolls it back).
 */
export function createCustomerImport({ db, clock }: { db: Database; clock: Clock }) {
  async function importCsv(ctx: CompanyCtx, bytes: Uint8Array, dryRun: boolean): Promise<ImportReport> {
    const { header, fields, separator, lines, report } = readSpreadsheet(bytes, mapHeaders, {
      required: ['name', 'document', 'cuit', 'dni', 'id'],
      example: 'nombre;tipo_documento;documento;telefono',
    });
    const result: ImportReport = { ...report, dry_run: dryRun };
    const parsed = lines.map(({ line, cells }) => ({ line, ...parseRow(cells, fields, header, separator, line) }));
    try {
      await db.orm.transaction(async (tx) => {
        await repo.lockCustomers(tx, ctx.companyId);
        const now = clock.now();
        const rowsOf = (list: repo.CustomerRow[]) => new Map(list.map((c) => [c.id, c]));
        const ids = parsed.map((p) => p.row.id).filter((id): id is number => id !== undefined);
        const known = rowsOf(await repo.customersByIds(tx, ctx.companyId, [...new Set(ids)]));
        const documentKeys = parsed.flatMap(({ row }) => {
          if (!row.document || !row.document_type) return [];
          try {
            return [
              `${row.document_type}:${toValues({ document: row.document, document_type: row.document_type }, null).document}`,
            ];
          } catch {
            return [];
          }
        });
        const byDocument = new Map<string, number>();
        for (const customer of await repo.customersByDocuments(tx, ctx.companyId, documentKeys)) {
          known.set(customer.id, customer);
          byDocument.set(`${customer.documentType}:${customer.document}`, customer.id);
        }
        const seen = new Map<string, number>();
        const inserts: { id: number; values: repo.CustomerValues }[] = [];
        let newIds: Awaited<ReturnType<typeof idBlock>> | null = null;
        for (const { line, row, errors } of parsed) {
          if (errors.length > 0) {
            result.errors.push(...errors);
            continue;
          }
          const rowError = (column: string | null, message: string) => result.errors.push({ line, column, message });
          const { id: givenId, ...fieldsOfRow } = row;
          let existing = givenId !== undefined ? (known.get(givenId) ?? null) : null;
          let values: Partial<repo.CustomerValues>;
          try {
            values = toValues(fieldsOfRow, existing);
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            rowError(columnFor(err.details?.[0]?.path, fields, header), fieldProblem(err, row));
            continue;
          }
          const key = values.document ? `${values.documentType}:${values.document}` : null;
          if (!existing && key && byDocument.has(key)) existing = known.get(byDocument.get(key)!) ?? null;
          const repeated = [existing ? `id:${existing.id}` : null, key].find((k) => k !== null && seen.has(k));
          if (repeated) {
            rowError(
              repeated.startsWith('id:') ? 'id' : columnFor('/document', fields, header),
              `repite el cliente de la línea ${seen.get(repeated)}`,
            );
            continue;
          }
          if (!existing && values.name === undefined) {
            rowError('nombre', 'falta el nombre (el cliente no existe y hace falta para crearlo)');
            continue;
          }
          const merged = existing ? { ...existing, ...values } : newCustomerValues(values);
          try {
            checkFiscalRules(merged);
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            rowError(columnFor(err.details?.[0]?.path, fields, header), fieldProblem(err, row));
            continue;
          }
          const owner = key === null ? undefined : byDocument.get(key);
          if (owner !== undefined && owner !== existing?.id) {
            const other = known.get(owner)!;
            rowError(
              columnFor('/document', fields, header),
              `el documento ${values.document} ya es del cliente ${other.id} (${other.name})`,
            );
            continue;
          }
          for (const k of [existing ? `id:${existing.id}` : null, key]) if (k) seen.set(k, line);
          if (existing) {
            const changes = changedValues(existing, values);
            if (Object.keys(changes).length === 0) {
              result.unchanged++;
              continue;
            }
            if (existing.document && (changes.document !== undefined || changes.documentType !== undefined)) {
              byDocument.delete(`${existing.documentType}:${existing.document}`);
            }
            await repo.updateCustomer(tx, ctx.companyId, existing.id, changes, now);
            known.set(existing.id, { ...existing, ...changes });
            if (key) byDocument.set(key, existing.id);
            result.updated++;
          } else {
            newIds ??= await idBlock(tx, 'customers', ctx.companyId, parsed.length);
            const id = newIds.take();
            inserts.push({ id, values: merged as repo.CustomerValues });
            known.set(id, { ...(merged as repo.CustomerValues), companyId: ctx.companyId, id, createdAt: now, updatedAt: now });
            if (key) byDocument.set(key, id);
            result.created++;
          }
        }
        await newIds?.finish();
        await repo.insertCustomers(tx, ctx.companyId, inserts, now);
        if (dryRun) throw new DryRun();
        await recordAudit(tx, {
          action: 'customer.imported',
          ...auditBy(ctx),
          details: {
            created: result.created,
            updated: result.updated,
            unchanged: result.unchanged,
            errors: result.errors.length,
          },
        });
      });
    } catch (err) {
      if (!(err instanceof DryRun)) throw err;
    }
    return result;
  }

  /** The customers as a spreadsheet: `;`, decimal comma, UTF-8 with BOM; importing it back changes nothing. */
  async function exportCsv(companyId: number): Promise<string> {
    const rows = await repo.allCustomers(db.orm, companyId);
    return writeSpreadsheet(
      CUSTOMER_EXPORT_HEADERS,
      rows.map((c) => [
        c.id,
        c.name,
        c.documentType,
        c.document,
        c.ivaCondition === null ? null : (RECEIVER_CONDITIONS[c.ivaCondition] ?? String(c.ivaCondition)),
        c.street,
        c.city,
        c.province,
        c.postalCode,
        c.email,
        c.phone,
        c.notes,
        c.accountEnabled ? 'si' : 'no',
        c.creditLimit === null ? null : formatAmount(moneyToNumber(c.creditLimit), 2),
        c.enabled ? 'si' : 'no',
      ]),
    );
  }

  return { importCsv, exportCsv };
}

/** The values that differ from the stored customer (credit limits compared as amounts). */
function changedValues(current: repo.CustomerRow, values: Partial<repo.CustomerValues>): Partial<repo.CustomerValues> {
  const changes: Partial<repo.CustomerValues> = {};
  for (const [key, value] of Object.entries(values) as [keyof repo.CustomerValues, unknown][]) {
    const before = current[key];
    const same =
      key === 'creditLimit'
        ? (before === null ? null : moneyToNumber(before as string)) === (value === null ? null : moneyToNumber(value as string))
        : before === value;
    if (!same) (changes as Record<string, unknown>)[key] = value;
  }
  return changes;
}
