import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Letter } from '../../src/modules/invoicing/fiscal-rules.ts';
import { type BooksApp, closeBox, makeShop, openBox, type Shop, sell, startBooksApp, verifyBooks } from '../books/books-shop.ts';
import { makeProduct } from '../factories.ts';
import { checkIdentities, read } from '../invoicing/printout-reader.ts';

/**
 * Issue 27 over HTTP: the printouts served at /facturas/:id (A4 and ticket) of invoices A, B, C and
 * their credit notes satisfy the calculator's identities; the sales CSV carries the invoice and the
 * customer, at the company's own local time.
 */
describe('printed invoices and the sales CSV, as served', () => {
  let b: BooksApp;
  beforeAll(async () => {
    b = await startBooksApp();
  }, 120_000);
  afterAll(() => b.close());

  /**
   * Both printouts of a receipt, checked; answers how many lines they printed (a sale line whose
   * net cannot be a unit price × quantity to the cent prints as two lines).
   */
  async function checkPrintouts(s: Shop, invoiceId: number, letter: Letter): Promise<number> {
    const invoice = (await b.call('GET', `/api/v1/invoices/${invoiceId}`, s.asAdmin)).json().invoice;
    let printed = -1;
    for (const formato of ['', '?formato=ticket']) {
      const page = await b.call('GET', `/facturas/${invoiceId}${formato}`, s.asCashier);
      expect(page.statusCode).toBe(200);
      checkIdentities(page.body, letter, invoice);
      const lines = read(page.body).lines.length;
      if (printed >= 0) expect(lines).toBe(printed);
      printed = lines;
    }
    return printed;
  }

  async function invoice(s: Shop, saleId: number, letterA: boolean) {
    const buyer = letterA
      ? { buyer: { doc_type: 'cuit', doc_number: '30-50001091-2', iva_condition: 1, name: 'Distribuidora Sur S.A.' } }
      : {};
    const res = await b.call('POST', `/api/v1/sales/${saleId}/invoice`, s.asCashier, buyer);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().invoice as { id: number; type: string };
  }

  it("the report's Factura A: 2 × $ 4.740 and 1 × $ 4.564 at 21 % print lines that multiply and add up to the net per rate", async () => {
    const s = await makeShop(b);
    const alfajores = (await makeProduct(b.t.container, s.companyId, { name: 'Alfajores x12', basePrice: 4740 })).id;
    const aceite = (await makeProduct(b.t.container, s.companyId, { name: 'Aceite 1,5 l', basePrice: 4564 })).id;
    const session = await openBox(b, s);
    const sale = await sell(
      b,
      s,
      [
        { product_id: alfajores, quantity: 2 },
        { product_id: aceite, quantity: 1 },
      ],
      [{ method: 'debito', amount: 14_044 }],
    );
    const issued = await invoice(s, sale.id, true);
    expect(issued.type).toBe('A');
    expect(await checkPrintouts(s, issued.id, 'A')).toBeGreaterThanOrEqual(2);
    const a4 = (await b.call('GET', `/facturas/${issued.id}`, s.asCashier)).body;
    expect(a4).not.toContain('7.834,71');
    await closeBox(b, s, session);
    expect((await verifyBooks(b, s.companyId)).code).toBe(0);
  }, 120_000);

  it('random carts, classes A, B and C, invoices and their credit notes: every printout, A4 and ticket, adds up', async () => {
    type Key = keyof Shop['products'];
    const line = fc.record({
      product: fc.constantFrom<Key>('p21', 'p105', 'exempt', 'kg'),
      units: fc.integer({ min: 1, max: 7 }),
      grams: fc.integer({ min: 5, max: 3_000 }),
    });
    const shops = { ri: await makeShop(b), mono: await makeShop(b, 'monotributo') };
    const sessions = { ri: await openBox(b, shops.ri), mono: await openBox(b, shops.mono) };
    let printouts = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(line, { minLength: 1, maxLength: 4, selector: (l) => l.product }),
        fc.constantFrom<Letter>('A', 'B', 'C'),
        async (cart, letter) => {
          const s = letter === 'C' ? shops.mono : shops.ri;
          const items = cart.map((l) => ({
            product_id: s.products[l.product],
            quantity: l.product === 'kg' ? l.grams / 1000 : l.units,
          }));
          const sale = await sell(b, s, items, [{ method: 'efectivo', amount: 1_000_000 }]);
          const issued = await invoice(s, sale.id, letter === 'A');
          expect(issued.type).toBe(letter);
          const printed = await checkPrintouts(s, issued.id, letter);
          expect(printed).toBeGreaterThanOrEqual(items.length);
          expect(printed).toBeLessThanOrEqual(2 * items.length);
          const cancelled = await b.call('POST', `/api/v1/sales/${sale.id}/cancel`, s.asAdmin, { reason: 'devolución' });
          expect(cancelled.statusCode, cancelled.body).toBe(200);
          // The cancel issued the credit note (issue 29): asking again answers it.
          const note = await b.call('POST', `/api/v1/invoices/${issued.id}/credit-note`, s.asAdmin);
          expect(note.statusCode, note.body).toBe(200);
          expect(await checkPrintouts(s, note.json().invoice.id, letter)).toBe(printed);
          printouts += 4;
        },
      ),
      { numRuns: Number(process.env['PRINT_RUNS'] ?? 12) },
    );
    expect(printouts).toBeGreaterThanOrEqual(48);
    for (const [key, s] of Object.entries(shops)) {
      await closeBox(b, s, sessions[key as keyof typeof sessions]);
      const { code, report } = await verifyBooks(b, s.companyId);
      expect(report.checks.filter((c) => !c.ok)).toEqual([]);
      expect(code).toBe(0);
    }
  }, 600_000);

  it('the sales CSV of a company in another time zone: its local time, the customer, the invoice and the credit note columns filled', async () => {
    const s = await makeShop(b);
    // Tokyo is 12 hours from Buenos Aires: an Argentine time in the file would show.
    await b.t.container.db.query(`UPDATE companies SET timezone = 'Asia/Tokyo' WHERE id = $1`, [s.companyId]);
    const session = await openBox(b, s);
    const res = await b.call(
      'POST',
      '/api/v1/sales',
      { ...s.asCashier, 'x-idempotency-key': crypto.randomUUID() },
      {
        box_id: 1,
        items: [{ product_id: s.products.p21, quantity: 1 }],
        payments: [{ method: 'efectivo', amount: 5000 }],
        customer: { name: 'María González' },
      },
    );
    expect(res.statusCode, res.body).toBe(201);
    const sale = res.json().sale as { id: number; created_at: string };
    const issued = await invoice(s, sale.id, false);
    const other = await sell(b, s, [{ product_id: s.products.p105, quantity: 2 }], [{ method: 'debito', amount: 2211 }]);
    const second = await invoice(s, other.id, false);
    await b.call('POST', `/api/v1/sales/${other.id}/cancel`, s.asAdmin, { reason: 'devolución' });
    const note = await b.call('POST', `/api/v1/invoices/${second.id}/credit-note`, s.asAdmin);
    expect(note.statusCode, note.body).toBe(200);
    await closeBox(b, s, session);

    const csv = await b.call('GET', '/api/v1/sales/export.csv', s.asAdmin);
    expect(csv.statusCode).toBe(200);
    const [head, ...rows] = csv.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    const columns = head!.split(';');
    const cellsOf = (id: number) => {
      const cells = rows.map((r) => r.split(';')).find((c) => c[0] === String(id))!;
      return Object.fromEntries(columns.map((name, i) => [name, cells[i]]));
    };
    const local = (iso: string, timeZone: string) => {
      const p = Object.fromEntries(
        new Intl.DateTimeFormat('en-GB', {
          timeZone,
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
          hourCycle: 'h23',
        })
          .formatToParts(new Date(iso))
          .map((x) => [x.type, x.value]),
      );
      return `${p['day']}/${p['month']}/${p['year']} ${p['hour']}:${p['minute']}`;
    };
    const first = cellsOf(sale.id);
    expect(first['fecha']).toBe(local(sale.created_at, 'Asia/Tokyo'));
    expect(first['fecha']).not.toBe(local(sale.created_at, 'America/Argentina/Buenos_Aires'));
    expect(first).toMatchObject({
      cliente: 'María González',
      factura: `B 0001-${String((await b.call('GET', `/api/v1/invoices/${issued.id}`, s.asAdmin)).json().invoice.number).padStart(8, '0')}`,
      nota_de_credito: '',
      estado: 'Pagada',
      origen: 'Caja',
    });
    const cancelled = cellsOf(other.id);
    expect(cancelled['estado']).toBe('Anulada');
    expect(cancelled['factura']).toMatch(/^B 0001-\d{8}$/);
    expect(cancelled['nota_de_credito']).toMatch(/^NC B 0001-\d{8}$/);
    expect(cancelled['motivo_anulacion']).toBe('devolución');
  }, 120_000);
});
