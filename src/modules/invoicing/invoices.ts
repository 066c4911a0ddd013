import type { Conn } from '../../db/client.ts';
import { assignId } from '../../db/ids.ts';
import { AppError } from '../../lib/errors.ts';
import { fromCents, moneyToNumber, toCents } from '../../lib/money.ts';
import { recordOutbound } from '../../outbox/outbox.repo.ts';
import type { LedgerOptions } from '../stock/stock.ledger.ts';
import * as repo from './invoicing.repo.ts';

// An invoice row on the wire (invoice.issued), its receipt number as printed, and recording one
// that another system issued (the invoice.issued event received, the demo seed). Issuing our own
// through ARCA: invoicing.service.ts.

export type InvoiceRow = repo.IssuedInvoiceRow;

export interface InvoiceInput {
  id?: number;
  saleId: number;
  type: string;
  pointOfSale: number;
  number: number;
  cae: string;
  caeExpiration: Date;
  total: string | number;
  issuedAt?: Date;
}

export function invoiceToWire(row: InvoiceRow) {
  return {
    id: row.id,
    company_id: row.companyId,
    sale_id: row.saleId,
    type: row.type,
    point_of_sale: row.pointOfSale,
    number: row.number,
    cae: row.cae,
    cae_expiration: row.caeExpiration.toISOString(),
    total: moneyToNumber(row.total),
    issued_at: row.issuedAt.toISOString(),
  };
}

/** "B 0001-00000042", the way receipts are written in Argentina. */
export function formatReceiptNumber(type: string, pointOfSale: number, number: number) {
  return `${type} ${String(pointOfSale).padStart(4, '0')}-${String(number).padStart(8, '0')}`;
}

/** Records a fiscal receipt issued for an existing, not cancelled sale. (type, point of sale, number) is unique per company. */
export async function recordInvoice(tx: Conn, companyId: number, input: InvoiceInput, options: LedgerOptions) {
  const status = await repo.shareSaleStatus(tx, companyId, input.saleId);
  if (status === null) throw new AppError('invalid_reference', `invoice refers to sale ${input.saleId}, which does not exist`);
  if (status === 'cancelled') {
    throw new AppError('invalid_state', `sale ${input.saleId} is cancelled; an invoice cannot be issued for it`);
  }
  const receipt = formatReceiptNumber(input.type, input.pointOfSale, input.number);
  const duplicate = await repo.invoiceIdOfReceipt(tx, companyId, input);
  if (duplicate !== null) throw new AppError('invalid_state', `receipt ${receipt} already exists as invoice ${duplicate}`);
  const id = await assignId(tx, 'invoices', companyId, input.id, 'invoice');
  const row = await repo.insertReceivedInvoice(tx, {
    companyId,
    id,
    saleId: input.saleId,
    type: input.type,
    pointOfSale: input.pointOfSale,
    number: input.number,
    cae: input.cae,
    caeExpiration: input.caeExpiration,
    total: fromCents(toCents(input.total)),
    issuedAt: input.issuedAt ?? options.now,
  });
  await recordOutbound(tx, {
    companyId,
    event: 'invoice.issued',
    data: { invoice: invoiceToWire(row) },
    causedBy: options.causedBy ?? null,
  });
  return row;
}
