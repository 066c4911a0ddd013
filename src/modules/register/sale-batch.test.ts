import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import type { SaleEvent } from '../sales/sales.schemas.ts';
import { jointStatement, type ReadySale } from './sale-batch.ts';

const dialect = new PgDialect();
const now = new Date('2026-11-27T12:00:00Z');

/** A plain register sale of `lines` lines, as the cashier hands it to the group commit. */
function sale(id: number, lines: number, firstMovementId: number): ReadySale {
  const items = Array.from({ length: lines }, (_, n) => ({
    id: n + 1,
    productId: n + 1,
    quantity: '1.000',
    price: '100.00',
    subtotal: '100.00',
  }));
  const event = (name: 'sales.created' | 'sales.paid') => ({ event: name, data: { sale: { id } } }) as unknown as SaleEvent;
  return {
    companyId: 7,
    depositId: 1,
    now,
    firstMovementId,
    movements: items.map((i) => ({
      type: 'OUT',
      depositId: 1,
      productId: i.productId,
      amount: i.quantity,
      reason: `venta ${id}`,
    })),
    sale: {
      id,
      customerId: null,
      boxId: 1,
      total: `${lines * 100}.00`,
      status: 'paid',
      paymentMethod: 'efectivo',
      paidAt: now,
      createdAt: now,
      now,
      items,
      sessionId: 3,
      payments: [{ method: 'efectivo', amount: `${lines * 100}.00`, tendered: null, change: '0.00', reference: null }],
    },
    register: {
      saleId: id,
      sessionId: 3,
      depositId: 1,
      key: `key-${id}`,
      sha256: 'x'.repeat(64),
      customerName: null,
      soldBy: 'Ana',
      soldByUserId: 4,
      soldAt: now,
      change: '0.00',
    },
    created: event('sales.created'),
    paid: [event('sales.paid')],
    alone: async () => {},
  };
}

describe('the joint statement of register sales', () => {
  it('has one text whatever the number of sales and lines: only its parameters change', () => {
    const one = dialect.sqlToQuery(jointStatement([sale(1, 3, 1)]));
    const many = dialect.sqlToQuery(jointStatement([sale(2, 1, 4), sale(3, 5, 5), sale(4, 2, 10), sale(5, 7, 12)]));
    expect(many.sql).toBe(one.sql);
    expect(many.params).toHaveLength(one.params.length);
    // The rows are in the parameters: every sale, line and event of the four.
    const text = JSON.stringify(many.params);
    for (const key of ['key-2', 'key-3', 'key-4', 'key-5']) expect(text).toContain(key);
    expect(text).toContain('venta 5');
  });
});
