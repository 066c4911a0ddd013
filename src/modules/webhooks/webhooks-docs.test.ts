import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { USER_AGENT } from './delivery-runner.ts';
import { RESERVED_HEADERS } from './endpoint-input.ts';
import { RETRY_DELAYS_SECONDS } from './retry-policy.ts';
import { OUTBOUND_EVENTS } from './webhook-events.ts';

const doc = readFileSync(new URL('../../../docs/webhooks.md', import.meta.url), 'utf8');

function human(seconds: number) {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${seconds / 60} min`;
  return `${seconds / 3600} h`;
}

/** The integrators' page must say what the code does. */
describe('docs/webhooks.md', () => {
  it('has the front matter of a docs page', () => {
    expect(doc).toMatch(/^---\ntitle: .+\ndescription: .+\norder: \d+\n---\n/);
  });

  it('shows the retry schedule the code uses', () => {
    const rows = [...doc.matchAll(/^\| (\d+) \| ([^|]+) \|/gm)].map((m) => [Number(m[1]), m[2]!.trim()]);
    expect(rows).toEqual([[1, '—'], ...RETRY_DELAYS_SECONDS.map((s, i) => [i + 2, human(s)])]);
  });

  it('names every event, every header Mostrador sets, and the user agent', () => {
    for (const event of OUTBOUND_EVENTS) expect(doc).toContain(`| \`${event}\` |`);
    for (const header of RESERVED_HEADERS.filter((h) => h.startsWith('x-') || h === 'content-type' || h === 'user-agent')) {
      expect(doc).toContain(`| \`${header}\` |`);
    }
    expect(doc).toContain(USER_AGENT);
  });
});
