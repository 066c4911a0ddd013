import { describe, expect, it } from 'vitest';
import { type LaterRefund, laterRefundText } from './close.tsx';

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
