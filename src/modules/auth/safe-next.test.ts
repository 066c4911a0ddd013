import { describe, expect, it } from 'vitest';
import { safeNextPath } from './safe-next.ts';

describe('safeNextPath', () => {
  it.each([
    ['/superadmin/companies', '/superadmin/companies'],
    ['/settings/integrations?tab=1#x', '/settings/integrations?tab=1#x'],
    ['/a/../superadmin', '/superadmin'],
  ])('keeps the same-site path %s', (next, expected) => {
    expect(safeNextPath(next)).toBe(expected);
  });

  it.each([
    [undefined],
    [''],
    ['https://evil.example/x'],
    ['//evil.example/x'],
    ['/\\evil.example'],
    ['\\\\evil.example'],
    ['javascript:alert(1)'],
    ['/\tevil'],
    ['http:/evil.example'],
    ['/login?next=/x'],
    [`/${'a'.repeat(3000)}`],
    [42],
  ])('falls back to / for %s', (next) => {
    expect(safeNextPath(next)).toBe('/');
  });
});
