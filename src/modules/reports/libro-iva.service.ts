import type { Database } from '../../db/client.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { toBigCents, toCents } from '../../lib/money.ts';
import { findCompanySettings } from '../companies/companies.repo.ts';
import { computeAmounts, DOC_TYPES, IVA_IDS, type Letter, RECEIPT_CODES } from '../invoicing/fiscal-rules.ts';
import { formatReceiptNumber } from '../invoicing/invoices.ts';
import { type BookReceipt, bookFile, bookTotals, RATE_NAMES, RECEIPT_NAMES } from './libro-iva.ts';
import * as repo from './libro-iva.repo.ts';
import { periodDays } from './report-range.ts';

// The Libro IVA Digital — ventas of a month: the receipts with CAE turned into the book's records,
// the two files, and the readable book (totals per receipt type and per rate).

/** "NC B" / "B" (the `type` of a receipt received through invoice.issued) → its letter and kind. */
function receivedClass(type: string): { letter: Letter; kind: 'invoice' | 'credit_note' } | null {
  const match = /^\s*(NC\s*)?([ABC])\s*$/i.exec(type);
  if (!match) return null;
  return { letter: match[2]!.toUpperCase() as Letter, kind: match[1] ? 'credit_note' : 'invoice' };
}

const RATE_ID_BY_NAME = new Map(Object.entries(IVA_IDS).map(([rate, v]) => [rate, v.id]));

/** A receipt this service issued: the numbers sent to ARCA, exactly. */
function ownRecord(row: repo.BookReceiptRow): Omit<BookReceipt, 'date' | 'pointOfSale' | 'number' | 'name'> {
  const code = row.receipt_code!;
  const classC = code === 11 || code === 13;
  const totalCents = toCents(row.total);
  return {
    code,
    docType: row.doc_type ?? DOC_TYPES.none,
    docNumber: row.doc_number ?? '0',
    totalCents,
    // Class C carries no IVA: its whole total is reported as not taxed, so the parts add up.
    untaxedCents: classC ? totalCents : 0,
    exemptCents: classC ? 0 : toCents(row.exempt ?? '0'),
    ivaLines: (row.iva_lines ?? []).map((l) => ({
      id: l.id ?? RATE_ID_BY_NAME.get(l.rate) ?? 0,
      baseCents: toCents(l.base),
      amountCents: toCents(l.amount),
    })),
  };
}

/** A received receipt (invoice.issued): split per rate the way ours are, from its sale's lines. */
function receivedRecord(
  row: repo.BookReceiptRow,
  gross: Map<string, bigint>,
): Omit<BookReceipt, 'date' | 'pointOfSale' | 'number' | 'name'> | null {
  const cls = receivedClass(row.type);
  if (!cls) return null;
  const totalCents = toCents(row.total);
  // Compared in exact cents: an integration sale's lines (each up to its column's limit) may add up
  // past 2^53 cents whatever its total. Once they equal the total, each part is a safe number.
  if ([...gross.values()].reduce((s, c) => s + c, 0n) !== BigInt(totalCents)) return null;
  const lines = [...gross].map(([ivaRate, cents]) => ({ ivaRate, subtotalCents: Number(cents) }));
  const amounts = computeAmounts(cls.letter, lines);
  const classC = cls.letter === 'C';
  return {
    code: RECEIPT_CODES[cls.letter][cls.kind],
    docType: DOC_TYPES.none,
    docNumber: '0',
    totalCents,
    untaxedCents: classC ? totalCents : 0,
    exemptCents: toCents(amounts.exempt),
    ivaLines: amounts.ivaLines.map((l) => ({ id: l.id, baseCents: toCents(l.base), amountCents: toCents(l.amount) })),
  };
}

export type LibroIvaService = ReturnType<typeof createLibroIvaService>;

export function createLibroIvaService({ db }: { db: Database }) {
  const orm = db.orm;

  async function receipts(companyId: number, period: string) {
    const { first, last } = periodDays(period);
    const [{ timezone }, fiscal] = await Promise.all([findCompanySettings(orm, companyId), repo.fiscalCondition(orm, companyId)]);
    const rows = await repo.bookReceipts(orm, companyId, { first, last, timeZone: timezone, environment: fiscal.environment });
    const received = rows.filter((r) => r.source !== 'arca' || r.receipt_code === null);
    const gross = new Map<number, Map<string, bigint>>();
    for (const g of await repo.saleGrossByRate(orm, companyId, [...new Set(received.map((r) => r.sale_id))])) {
      const bySale = gross.get(g.sale_id) ?? new Map<string, bigint>();
      bySale.set(g.iva_rate, toBigCents(g.gross));
      gross.set(g.sale_id, bySale);
    }
    const book: (BookReceipt & { id: number; source: string })[] = [];
    const skipped: { id: number; receipt: string; reason: string }[] = [];
    for (const row of rows) {
      const own = row.source === 'arca' && row.receipt_code !== null;
      const record = own ? ownRecord(row) : receivedRecord(row, gross.get(row.sale_id) ?? new Map());
      const receipt = formatReceiptNumber(row.type, row.point_of_sale, Number(row.number));
      if (!record) {
        skipped.push({
          id: row.id,
          receipt,
          reason: receivedClass(row.type)
            ? "the sale's lines do not add up to the receipt's total, so its IVA cannot be split"
            : `receipt type "${row.type}" is not A, B, C or NC A/B/C`,
        });
        continue;
      }
      const name = row.receiver_name ?? (record.docType === DOC_TYPES.none ? (row.customer_name ?? 'CONSUMIDOR FINAL') : '');
      book.push({
        ...record,
        id: row.id,
        source: row.source,
        date: row.date,
        pointOfSale: row.point_of_sale,
        number: Number(row.number),
        name,
      });
    }
    return { period, first, last, ivaCondition: fiscal.iva_condition, environment: fiscal.environment, book, skipped };
  }

  /** The readable book: every receipt, totals per receipt type and per rate (the sums of the receipts). */
  async function show(ctx: CompanyCtx, period: string) {
    const r = await receipts(ctx.companyId, period);
    const totals = bookTotals(r.book);
    const pesos = (cents: number) => cents / 100;
    return {
      period: r.period,
      from: r.first,
      to: r.last,
      iva_condition: r.ivaCondition,
      environment: r.environment,
      receipts: r.book.map((b) => ({
        id: b.id,
        source: b.source as 'arca' | 'integration',
        date: b.date,
        code: b.code,
        type_name: RECEIPT_NAMES[b.code] ?? String(b.code),
        point_of_sale: b.pointOfSale,
        number: b.number,
        doc_type: b.docType,
        doc_number: b.docType === DOC_TYPES.none ? null : b.docNumber,
        name: b.name,
        net: pesos(b.ivaLines.reduce((s, l) => s + l.baseCents, 0)),
        iva: pesos(b.ivaLines.reduce((s, l) => s + l.amountCents, 0)),
        exempt: pesos(b.exemptCents),
        untaxed: pesos(b.untaxedCents),
        total: pesos(b.totalCents),
      })),
      by_type: totals.byType.map((t) => ({ ...t, type_name: RECEIPT_NAMES[t.code] ?? String(t.code) })),
      by_rate: totals.byRate.map((t) => ({ ...t, rate: RATE_NAMES[t.id] ?? String(t.id) })),
      skipped: r.skipped,
    };
  }

  /** One of the two import files, as ISO-8859-1 text (the caller encodes it). */
  async function file(ctx: CompanyCtx, period: string, which: 'cbte' | 'alicuotas') {
    const r = await receipts(ctx.companyId, period);
    return {
      name: `LIBRO_IVA_DIGITAL_VENTAS_${which === 'cbte' ? 'CBTE' : 'ALICUOTAS'}_${period}.txt`,
      text: bookFile(r.book, which),
    };
  }

  return { show, file };
}
