import { describe, expect, it } from 'vitest';
import { formatCount, formatCountOf, formatDate, formatDateTime, formatRelative, parseTypedDate } from './format.ts';

describe('es-AR formatting', () => {
  it('writes moments in Buenos Aires time as dd/mm/aaaa, hh:mm', () => {
    expect(formatDateTime('2026-11-21T13:15:09Z')).toBe('21/11/2026, 10:15');
    expect(formatDateTime('2026-11-21T13:15:09Z', { seconds: true })).toBe('21/11/2026, 10:15:09');
  });

  it('keeps a calendar date on its own day', () => {
    expect(formatDate('2026-03-01')).toBe('01/03/2026');
    expect(formatDate('2026-03-01T02:00:00Z')).toBe('28/02/2026');
  });

  it('reads a day typed dd/mm/aaaa (and its usual variants) as a calendar date, refusing days that do not exist', () => {
    expect(parseTypedDate('29/11/2026')).toBe('2026-11-29');
    expect(parseTypedDate(' 1/3/2026 ')).toBe('2026-03-01');
    expect(parseTypedDate('01-03-2026')).toBe('2026-03-01');
    expect(parseTypedDate('01.03.2026')).toBe('2026-03-01');
    expect(parseTypedDate('29112026')).toBe('2026-11-29');
    expect(parseTypedDate('29/02/2028')).toBe('2028-02-29');
    for (const bad of ['29/02/2026', '31/04/2026', '00/01/2026', '12/13/2026', '2026-11-29', '29/11/26', '', 'hoy']) {
      expect([bad, parseTypedDate(bad)]).toEqual([bad, null]);
    }
  });

  it('groups thousands with a dot', () => {
    expect(formatCount(1184)).toBe('1.184');
    expect(formatCount(1234567)).toBe('1.234.567');
  });

  it('counts one in the singular: "1 venta", never "1 ventas"', () => {
    expect(formatCountOf(1, 'venta', 'ventas')).toBe('1 venta');
    expect(formatCountOf(0, 'venta', 'ventas')).toBe('0 ventas');
    expect(formatCountOf(1184, 'venta', 'ventas')).toBe('1.184 ventas');
  });

  it('says how long ago, then the date', () => {
    const now = new Date('2026-11-21T12:00:00Z');
    expect(formatRelative('2026-11-21T11:55:00Z', now)).toBe('hace 5 minutos');
    expect(formatRelative('2026-11-20T12:00:00Z', now)).toBe('ayer');
    expect(formatRelative('2026-11-21T11:59:50Z', now)).toBe('recién');
    expect(formatRelative('2026-11-01T12:00:00Z', now)).toBe('01/11/2026');
  });
});
