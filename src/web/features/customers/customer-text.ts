import { RECEIVER_CONDITIONS } from '../../../lib/arca-codes.ts';
import { formatCuit } from '../../../lib/cuit.ts';
import { AppError } from '../../../lib/errors.ts';
import {
  addressLine,
  canReceiveClassA,
  CONDITIONS_NEEDING_CUIT,
  type DocumentType,
  normaliseDocument,
  normalisePhone,
} from '../../../modules/customers/customer-fields.ts';
import type { CustomerWire } from '../../../modules/customers/customers.service.ts';

export type Customer = CustomerWire;

export const DOCUMENT_LABELS: Record<DocumentType, string> = { cuit: 'CUIT', cuil: 'CUIL', dni: 'DNI', pasaporte: 'Pasaporte' };

/** ARCA's receiver conditions in the order a shop picks them (the common ones first). */
export const CONDITION_OPTIONS: [number, string][] = [5, 1, 6, 4, 13, 16, 7, 15, 10, 9, 8].map((code) => [
  code,
  RECEIVER_CONDITIONS[code]!,
]);

export const conditionName = (code: number | null) =>
  code === null ? 'Consumidor Final' : (RECEIVER_CONDITIONS[code] ?? String(code));

/** "30-71234567-1", "DNI 28.456.789", "Pasaporte AAB123456"; empty when none. */
export function documentText(c: Pick<Customer, 'document_type' | 'document'>): string {
  if (!c.document_type || !c.document) return '';
  if (c.document_type === 'cuit' || c.document_type === 'cuil')
    return `${DOCUMENT_LABELS[c.document_type]} ${formatCuit(c.document)}`;
  if (c.document_type === 'dni') return `DNI ${Number(c.document).toLocaleString('es-AR')}`;
  return `Pasaporte ${c.document}`;
}

export interface Check {
  ok: boolean;
  message: string;
}

/** The server's document check as the person types: what is wrong, or what will be stored. */
export function checkDocument(type: DocumentType | '', raw: string): Check {
  if (raw.trim() === '') return { ok: true, message: '' };
  if (type === '') return { ok: false, message: 'Elegí el tipo de documento.' };
  try {
    const stored = normaliseDocument(type, raw);
    if (type === 'cuit' || type === 'cuil')
      return { ok: true, message: `${DOCUMENT_LABELS[type]} válido: ${formatCuit(stored)}.` };
    return { ok: true, message: '' };
  } catch (err) {
    const detail = err instanceof AppError ? err.details?.[0] : undefined;
    switch (detail?.message) {
      case 'wrong_check_digit':
        return {
          ok: false,
          message: `El dígito verificador no coincide: el último debería ser ${detail.expected}. Revisá que esté bien copiado.`,
        };
      case 'wrong_length':
        return { ok: false, message: `Un ${DOCUMENT_LABELS[type]} tiene 11 dígitos (con o sin guiones).` };
      case 'not_a_dni':
        return { ok: false, message: 'Un DNI tiene 7 u 8 dígitos.' };
      case 'not_a_passport':
        return { ok: false, message: 'El pasaporte lleva solo letras y números.' };
      default:
        return { ok: false, message: `Ese ${DOCUMENT_LABELS[type]} no es válido: revisá los primeros dígitos.` };
    }
  }
}

/** The phone as it will be stored, or what is wrong with it. */
export function checkPhone(raw: string): Check {
  if (raw.trim() === '') return { ok: true, message: '' };
  const stored = normalisePhone(raw);
  return stored
    ? { ok: true, message: `Se guarda como ${stored} (para WhatsApp).` }
    : { ok: false, message: 'No parece un teléfono: escribilo con característica, por ejemplo 11 4321-5678.' };
}

/** The condition needs a CUIT and the document is not one. */
export function needsCuit(condition: number, type: DocumentType | ''): boolean {
  return CONDITIONS_NEEDING_CUIT.has(condition) && type !== 'cuit';
}

/** The class the issuer gives this customer: a Responsable Inscripto A or B; monotributo and exento issue C. */
export function classFor(
  issuer: string | null,
  customer: Pick<Customer, 'document_type' | 'iva_condition'> | null,
): 'A' | 'B' | 'C' {
  if (issuer !== 'responsable_inscripto') return 'C';
  return customer && canReceiveClassA({ documentType: customer.document_type, ivaCondition: customer.iva_condition }) ? 'A' : 'B';
}

/** The address on one line, as the receipt prints it (empty when none). */
export const addressText = (a: Customer['address']) => addressLine(a) ?? '';

/** A wa.me link for a stored E.164 phone. */
export const whatsappLink = (phone: string) => `https://wa.me/${phone.replace(/\D/g, '')}`;
