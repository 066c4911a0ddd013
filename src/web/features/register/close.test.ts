import { describe, expect, it } from 'vitest';
import { differenceSummary, type LaterRefund, laterRefundText, type SessionReport } from './close.tsx';
import { parseCount } from './count-grid.tsx';

describe('a line of "Devoluciones posteriores"', () => {
  const base: LaterRefund = {
    sale_id: 12,
    kind: 'returned',
    total: 11_764.5,
    refunded: 6965.7,
    cancelled_at: '2026-11-28T20:10:00.000Z',
    refund_session_id: 3,
  };

  it('a return of some lines says what it gave back, not the sale total, and never "anulada"', () => {
    const text = laterRefundText(base);
    expect(text).toMatch(/^Venta N\.º 12: devolución de \$\u00a06\.965,70 el 28\/11\/2026/);
    expect(text).toContain('(devuelto desde el turno N.º 3)');
    expect(text).not.toContain('11.764,50');
    expect(text).not.toContain('anulada');
    expect(laterRefundText({ ...base, refund_session_id: null })).toContain('(a favor en la cuenta del cliente)');
  });

  it('a cancellation names the sale, its total and what went back', () => {
    const text = laterRefundText({ ...base, kind: 'cancelled', refunded: 11_764.5 });
    expect(text).toMatch(/^Venta N\.º 12 \(\$\u00a011\.764,50\): anulada el 28\/11\/2026/);
    expect(text).toContain('se devolvieron $\u00a011.764,50 (devuelto desde el turno N.º 3)');
    const unpaid = laterRefundText({ ...base, kind: 'cancelled', refunded: 0, refund_session_id: null });
    expect(unpaid).toMatch(/anulada el .*; no había dinero para devolver$/);
  });
});

describe('a closed shift’s difference in Cierres', () => {
  const report = (difference: Record<string, number> | null) => ({ difference }) as SessionReport;

  it('never nets a cash shortage against a surplus in another method', () => {
    const out = differenceSummary(report({ efectivo: -249.5, transferencia: 400.5, qr: 0 }), 'OK');
    expect(out.text).toBe('Efectivo -$\u00a0249,50 · Transferencia $\u00a0400,50');
    expect(out.tone).toBe('error');
  });

  it('reads the zero word when every method matches, and a dash before the count', () => {
    expect(differenceSummary(report({ efectivo: 0, debito: 0 }), 'Sin diferencia')).toEqual({ text: 'Sin diferencia', tone: '' });
    expect(differenceSummary(report(null), 'OK')).toEqual({ text: '—', tone: '' });
    expect(differenceSummary(report({ debito: 10 }), 'OK')).toEqual({ text: 'Débito $\u00a010,00', tone: 'ok' });
    expect(differenceSummary(report({ efectivo: -5, debito: 0 }), 'OK')).toEqual({ text: '-$\u00a05,00', tone: 'error' });
  });
});

describe('a count as typed', () => {
  it('cash is never negative; another method may be', () => {
    expect(parseCount('efectivo', '5.000,50')).toBe(500_050);
    expect(parseCount('efectivo', '-400')).toBeNull();
    expect(parseCount('transferencia', '-400,50')).toBe(-40_050);
    expect(parseCount('debito', '−1.000')).toBe(-100_000);
    expect(parseCount('qr', 'abc')).toBeNull();
  });
});
