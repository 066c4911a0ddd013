import { cuitCheckDigit, normalizeCuit } from '../../lib/cuit.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import { CLASS_A_RECEIVERS, RECEIVER_CONDITIONS } from '../../lib/arca-codes.ts';
import { isEmailAddress } from '../../lib/email.ts';

/**
 * A customer's fields as stored, from what people type: pure rules, no database. Every refusal is a
 * 422 `validation_failed` whose details name the field (`/document`, `/phone`…) and the problem in a
 * word a screen can translate (`wrong_check_digit` with `expected`, `not_a_phone`…).
 */

export const DOCUMENT_TYPES = ['cuit', 'cuil', 'dni', 'pasaporte'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** ARCA's receiver IVA conditions (CondicionIVAReceptorId). */
export const IVA_CONDITION_CODES = Object.keys(RECEIVER_CONDITIONS).map(Number);
/** The condition of a customer created without one: Consumidor Final. */
export const DEFAULT_IVA_CONDITION = 5;
/**
 * Conditions ARCA identifies by CUIT: the ones that receive a Factura A (1 RI, 6 Monotributo, 13
 * Monotributista Social, 16 Monotributo Trabajador Independiente Promovido) and 4 Exento. The
 * invoice's buyer rules (invoicing/fiscal-rules.ts resolveBuyer) refuse them without a CUIT.
 */
export const CONDITIONS_NEEDING_CUIT: ReadonlySet<number> = new Set([...CLASS_A_RECEIVERS, 4]);

/** Whether a customer can receive a Factura A (from a Responsable Inscripto): a CUIT and a class A condition. */
export function canReceiveClassA(customer: { documentType: DocumentType | null; ivaCondition: number | null }): boolean {
  return customer.documentType === 'cuit' && customer.ivaCondition !== null && CLASS_A_RECEIVERS.has(customer.ivaCondition);
}

export function invalidField(path: string, message: string, text: string, extra: Partial<ErrorDetail> = {}): AppError {
  return new AppError('validation_failed', `${path} ${text}`, { details: [{ path: `/${path}`, message, ...extra }] });
}

/**
 * The bare number of a document: CUIT/CUIL 11 digits with a right check digit ("20-12345678-6"
 * accepted), DNI 7 or 8 digits (dots accepted, leading zeros dropped), passport letters and digits
 * in upper case.
 */
export function normaliseDocument(type: DocumentType, raw: string): string {
  const text = raw.trim();
  if (type === 'cuit' || type === 'cuil') {
    const digits = text.replace(/[\s.-]/g, '');
    if (!/^\d{11}$/.test(digits)) {
      throw invalidField('document', 'wrong_length', `a ${type.toUpperCase()} has 11 digits (got "${raw}")`);
    }
    if (normalizeCuit(digits) === null) {
      const expected = cuitCheckDigit(digits.slice(0, 10));
      if (expected >= 0 && String(expected) !== digits[10]) {
        throw invalidField('document', 'wrong_check_digit', `${raw} has a wrong check digit: it should end in ${expected}`, {
          expected: String(expected),
        });
      }
      throw invalidField('document', 'invalid_cuit', `${raw} is not a valid ${type.toUpperCase()}`);
    }
    return digits;
  }
  if (type === 'dni') {
    const digits = text.replace(/[\s.]/g, '');
    if (!/^\d{7,8}$/.test(digits) || Number(digits) === 0) {
      throw invalidField('document', 'not_a_dni', `a DNI has 7 or 8 digits (got "${raw}")`);
    }
    return String(Number(digits));
  }
  const passport = text.replace(/[\s-]/g, '').toUpperCase();
  if (!/^[A-Z0-9]{5,20}$/.test(passport)) {
    throw invalidField('document', 'not_a_passport', `a passport number has 5 to 20 letters and digits (got "${raw}")`);
  }
  return passport;
}

/**
 * A phone in E.164, the form WhatsApp links take. Argentine numbers become the mobile form
 * `+54 9 <area> <number>` ("011 15 4321-5678", "11 4321 5678", "+54 9 11 4321-5678" all give
 * +5491143215678): a landline cannot be told from a mobile by its digits, and a phone a shop keeps
 * for a customer is the one it writes to. Other countries' numbers are kept as given after `+` or `00`.
 * Null when it cannot be a phone.
 */
export function normalisePhone(raw: string): string | null {
  const compact = raw.trim().replace(/[\s\-.()/]/g, '');
  if (!/^(\+|00)?\d+$/.test(compact)) return null;
  let digits = compact.replace(/^(\+|00)/, '');
  const international = compact !== digits;
  if (international || (digits.startsWith('54') && digits.length >= 12)) {
    if (!digits.startsWith('54')) return digits.length >= 8 && digits.length <= 15 ? `+${digits}` : null;
    digits = digits.slice(2);
  }
  digits = digits.replace(/^0/, '');
  if (digits.length === 11 && digits.startsWith('9')) digits = digits.slice(1);
  if (digits.length === 12) digits = withoutMobilePrefix(digits) ?? '';
  if (digits.length !== 10 || !/^[1-3]/.test(digits)) return null;
  return `+549${digits}`;
}

/** "11 15 43215678" → "1143215678": the `15` a mobile takes after its area code (2 to 4 digits) when dialled locally. */
function withoutMobilePrefix(digits: string): string | null {
  for (const areaLength of [2, 3, 4]) {
    if (digits.slice(areaLength, areaLength + 2) === '15') return digits.slice(0, areaLength) + digits.slice(areaLength + 2);
  }
  return null;
}

/** A trimmed, lower-cased email, or null when it does not look like one. */
export function normaliseEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  return isEmailAddress(email) ? email : null;
}

/**
 * The fiscal rules of a customer's document and IVA condition, on the fields as they will be stored:
 * the condition is one of ARCA's codes, and a condition ARCA identifies by CUIT (RI, Monotributo,
 * Exento…) needs a CUIT. A CUIL, DNI or passport may be Consumidor Final, No Categorizado, del
 * Exterior, IVA Liberado or No Alcanzado.
 */
export function checkFiscalRules(fields: { documentType: DocumentType | null; ivaCondition: number | null }): void {
  const condition = fields.ivaCondition;
  if (condition === null) return;
  if (!IVA_CONDITION_CODES.includes(condition)) {
    throw invalidField(
      'iva_condition',
      'unknown_condition',
      `${condition} is not an ARCA receiver condition (one of ${IVA_CONDITION_CODES.join(', ')})`,
    );
  }
  if (CONDITIONS_NEEDING_CUIT.has(condition) && fields.documentType !== 'cuit') {
    throw invalidField(
      'document_type',
      'cuit_required',
      `a customer with IVA condition ${condition} (${RECEIVER_CONDITIONS[condition]}) is identified by CUIT`,
    );
  }
}

/** An address on one line, as a receipt prints it: "Av. Rivadavia 5200, CABA, Buenos Aires (C1424)"; null when empty. */
export function addressLine(a: {
  street: string | null;
  city: string | null;
  province: string | null;
  postal_code: string | null;
}): string | null {
  const place = [a.street, a.city, a.province].filter((part): part is string => !!part?.trim()).join(', ');
  const text = a.postal_code ? `${place}${place ? ' ' : ''}(${a.postal_code})` : place;
  return text === '' ? null : text;
}
