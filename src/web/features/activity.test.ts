import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { auditLabel } from './activity.tsx';

/** The actions of the AuditAction union, read from its source (a type has no runtime list). */
function auditActions(): string[] {
  const source = readFileSync(new URL('../../modules/audit/audit.repo.ts', import.meta.url), 'utf8');
  const union = /export type AuditAction =([^;]+);/.exec(source)?.[1] ?? '';
  return [...union.matchAll(/'([a-z_]+\.[a-z_]+)'/g)].map((m) => m[1]!);
}

describe('the activity log in the owner’s words', () => {
  it('names a shift opened and an invoice issued in Spanish, not by their identifiers', () => {
    expect(auditLabel('box_session.opened')).toBe('Turno de caja abierto');
    expect(auditLabel('invoice.issued')).toBe('Factura emitida');
  });

  it('has a Spanish label for every action the server records', () => {
    const actions = auditActions();
    expect(actions.length).toBeGreaterThan(50);
    expect(actions.filter((a) => auditLabel(a) === a)).toEqual([]);
  });
});
