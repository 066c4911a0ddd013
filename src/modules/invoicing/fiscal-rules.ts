import { CLASS_A_RECEIVERS, RECEIVER_CONDITIONS } from '../../lib/arca-codes.ts';
import { normalizeCuit } from '../../lib/cuit.ts';
import { AppError } from '../../lib/errors.ts';
import { fromCents } from '../../lib/money.ts';
import type { IvaCondition } from '../../db/schema/index.ts';

/**
 * ARCA's rules for a receipt, as pure functions: the class from the issuer's and the buyer's IVA
 * conditions, the buyer's document, the RG 5700 threshold and the IVA lines. Sources:
 * the WSFEv1 developer manual v4.0 and docs/facturacion.md.
 */

export { RECEIVER_CONDITIONS };

export type Letter = 'A' | 'B' | 'C';

/** CbteTipo of an invoice and of a credit note, per class. */
export const RECEIPT_CODES: Record<Letter, { invoice: number; credit_note: number }> = {
  A: { invoice: 1, credit_note: 3 },
  B: { invoice: 6, credit_note: 8 },
  C: { invoice: 11, credit_note: 13 },
};

/** The receipt as written on paper and in the `type` field of invoice.issued. */
export function receiptTypeName(letter: Letter, kind: 'invoice' | 'credit_note'): string {
  return kind === 'invoice' ? letter : `NC ${letter}`;
}

export const ISSUER_CONDITIONS: Record<IvaCondition, string> = {
  responsable_inscripto: 'IVA Responsable Inscripto',
  monotributo: 'Responsable Monotributo',
  exento: 'IVA Sujeto Exento',
};

export const DOC_TYPES = { cuit: 80, cuil: 86, dni: 96, none: 99 } as const;
export const DOC_TYPE_NAMES: Record<number, string> = { 80: 'CUIT', 86: 'CUIL', 96: 'DNI', 99: 'Sin identificar' };

/** RG 5700/2025: a receipt to a final consumer from this total identifies the buyer. */
export const IDENTIFICATION_THRESHOLD_CENTS = 10_000_000_00;

/** AlicIva Id per product IVA rate, and the rate in thousandths. */
export const IVA_IDS: Record<string, { id: number; perMille: number }> = {
  '0': { id: 3, perMille: 0 },
  '10.5': { id: 4, perMille: 105 },
  '21': { id: 5, perMille: 210 },
  '27': { id: 6, perMille: 270 },
  '5': { id: 8, perMille: 50 },
  '2.5': { id: 9, perMille: 25 },
};

export interface BuyerInput {
  doc_type?: 'cuit' | 'cuil' | 'dni' | undefined;
  doc_number?: string | undefined;
  iva_condition?: number | undefined;
  name?: string | undefined;
}

export interface Buyer {
  docType: number;
  docNumber: string;
  ivaCondition: number;
  name: string | null;
}

export interface PlanLine {
  /** The product's IVA rate ('21', '10.5', … or 'exento'); the price includes it. */
  ivaRate: string;
  subtotalCents: number;
}

export interface IvaLine {
  id: number;
  rate: string;
  base: string;
  amount: string;
}

export interface Amounts {
  total: string;
  net: string;
  iva: string;
  exempt: string;
  untaxed: string;
  ivaLines: IvaLine[];
}

/** The class an issuer gives a buyer; throws when the buyer's data cannot receive any. */
export function chooseLetter(issuer: IvaCondition, buyer: Buyer): Letter {
  if (issuer !== 'responsable_inscripto') return 'C';
  return CLASS_A_RECEIVERS.has(buyer.ivaCondition) && buyer.docType === DOC_TYPES.cuit ? 'A' : 'B';
}

/** Validates and normalises the buyer; no buyer is a final consumer without identification. */
export function resolveBuyer(input: BuyerInput | undefined, totalCents: number): Buyer {
  const condition = input?.iva_condition ?? 5;
  if (!(condition in RECEIVER_CONDITIONS)) {
    throw new AppError('validation_failed', `buyer.iva_condition ${condition} is not an ARCA receiver condition`, {
      details: [{ path: '/buyer/iva_condition', message: `one of ${Object.keys(RECEIVER_CONDITIONS).join(', ')}` }],
    });
  }
  const name = input?.name?.trim() || null;
  const docType = input?.doc_type;
  const raw = input?.doc_number?.replace(/[\s.-]/g, '') ?? '';
  if (!docType || raw === '') {
    if (CLASS_A_RECEIVERS.has(condition) || condition === 4) {
      throw new AppError('validation_failed', `a buyer with IVA condition ${RECEIVER_CONDITIONS[condition]} needs their CUIT`, {
        details: [{ path: '/buyer/doc_number', message: 'CUIT required' }],
      });
    }
    if (condition === 5 && totalCents >= IDENTIFICATION_THRESHOLD_CENTS) {
      throw new AppError(
        'validation_failed',
        'from $ 10.000.000 a sale to a final consumer identifies the buyer (RG 5700): send buyer.doc_type and buyer.doc_number',
        { details: [{ path: '/buyer', message: 'buyer_identification_required' }] },
      );
    }
    return { docType: DOC_TYPES.none, docNumber: '0', ivaCondition: condition, name };
  }
  if (docType === 'cuit' || docType === 'cuil') {
    const cuit = normalizeCuit(raw);
    if (!cuit) {
      throw new AppError('validation_failed', `buyer.doc_number is not a valid ${docType.toUpperCase()}`, {
        details: [{ path: '/buyer/doc_number', message: 'check digit' }],
      });
    }
    if (docType === 'cuil' && CLASS_A_RECEIVERS.has(condition)) {
      // Their receipt is a Factura A, which only a CUIT receives (DocTipo 80; a B with this
      // condition is rejected, 10243). The research does not say a CUIL stands for the CUIT.
      throw new AppError(
        'validation_failed',
        `a buyer with IVA condition ${RECEIVER_CONDITIONS[condition]} is identified by CUIT, not CUIL`,
        { details: [{ path: '/buyer/doc_type', message: 'cuit' }] },
      );
    }
    return { docType: DOC_TYPES[docType], docNumber: cuit, ivaCondition: condition, name };
  }
  if (!/^\d{7,8}$/.test(raw)) {
    throw new AppError('validation_failed', 'buyer.doc_number is not a DNI (7 or 8 digits)', {
      details: [{ path: '/buyer/doc_number', message: '7 or 8 digits' }],
    });
  }
  if (CLASS_A_RECEIVERS.has(condition) || condition === 4) {
    throw new AppError(
      'validation_failed',
      `a buyer with IVA condition ${RECEIVER_CONDITIONS[condition]} is identified by CUIT`,
      {
        details: [{ path: '/buyer/doc_type', message: 'cuit' }],
      },
    );
  }
  return { docType: DOC_TYPES.dni, docNumber: String(Number(raw)), ivaCondition: condition, name };
}

/** Integer division rounding half to even (banker's rounding), for non-negative numerators. */
export function divideHalfEven(numerator: number, denominator: number): number {
  const q = Math.floor(numerator / denominator);
  const twice = 2 * (numerator - q * denominator);
  if (twice > denominator) return q + 1;
  if (twice < denominator) return q;
  return q % 2 === 0 ? q : q + 1;
}

/**
 * The amounts of a receipt from lines whose prices include IVA. Per rate: base = gross / (1 + rate)
 * rounded half even, IVA = gross − base, so the receipt's total is the sale's to the cent and each
 * IVA amount is within ARCA's 0.01 of base × rate. Exempt lines go to ImpOpEx. Class C has no IVA:
 * the whole total is the net amount.
 */
export function computeAmounts(letter: Letter, lines: PlanLine[]): Amounts {
  const totalCents = lines.reduce((sum, l) => sum + l.subtotalCents, 0);
  if (letter === 'C') {
    return {
      total: fromCents(totalCents),
      net: fromCents(totalCents),
      iva: '0.00',
      exempt: '0.00',
      untaxed: '0.00',
      ivaLines: [],
    };
  }
  const gross = new Map<string, number>();
  for (const line of lines) gross.set(line.ivaRate, (gross.get(line.ivaRate) ?? 0) + line.subtotalCents);
  let netCents = 0;
  let ivaCents = 0;
  const exemptCents = gross.get('exento') ?? 0;
  const ivaLines: IvaLine[] = [];
  for (const [rate, cents] of [...gross].sort((a, b) => (IVA_IDS[a[0]]?.id ?? 99) - (IVA_IDS[b[0]]?.id ?? 99))) {
    if (rate === 'exento' || cents === 0) continue;
    const rule = IVA_IDS[rate];
    if (!rule) throw new Error(`unknown IVA rate ${rate}`);
    const base = divideHalfEven(cents * 1000, 1000 + rule.perMille);
    const amount = cents - base;
    netCents += base;
    ivaCents += amount;
    ivaLines.push({ id: rule.id, rate, base: fromCents(base), amount: fromCents(amount) });
  }
  return {
    total: fromCents(totalCents),
    net: fromCents(netCents),
    iva: fromCents(ivaCents),
    exempt: fromCents(exemptCents),
    untaxed: '0.00',
    ivaLines,
  };
}

/** YYYYMMDD → YYYY-MM-DD. */
export function isoDate(arca: string): string {
  return `${arca.slice(0, 4)}-${arca.slice(4, 6)}-${arca.slice(6, 8)}`;
}

/**
 * The RG 4892/2020 QR: https://www.afip.gob.ar/fe/qr/?p= + base64 of this JSON, keys in this order.
 */
export function qrUrl(receipt: {
  date: string;
  cuit: string;
  pointOfSale: number;
  code: number;
  number: number;
  total: string;
  docType: number;
  docNumber: string;
  cae: string;
  /** "E" for a CAE, "A" for a CAEA (RG 4892's tipoCodAut). */
  codeKind?: 'E' | 'A';
}): string {
  const payload = {
    ver: 1,
    fecha: receipt.date,
    cuit: Number(receipt.cuit),
    ptoVta: receipt.pointOfSale,
    tipoCmp: receipt.code,
    nroCmp: receipt.number,
    importe: Number(receipt.total),
    moneda: 'PES',
    ctz: 1,
    tipoDocRec: receipt.docType,
    nroDocRec: Number(receipt.docNumber),
    tipoCodAut: receipt.codeKind ?? 'E',
    codAut: Number(receipt.cae),
  };
  return `https://www.afip.gob.ar/fe/qr/?p=${Buffer.from(JSON.stringify(payload), 'utf8').toString('base64')}`;
}
