import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/modules/demo/demo.service.ts';
import type { ScannerResult } from '../../src/modules/scanner/scanner.schemas.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { SCANNER_QUERIES } from '../scanner-queries.ts';

/**
 * The scanner's evaluation set against the demo catalogue, through the real lookup (database,
 * index, ranking). Prints `scanner quality: top-1 <p>%, top-3 <p>%`; the targets are 97 % and 99 %.
 */
describe('price scanner quality on the demo catalogue', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await buildTestApp({ env: { SCANNER_RATE_LIMIT_PER_MINUTE: '0' } });
    token = (await seedDemo(t.container)).scannerToken;
  }, 120_000);
  afterAll(() => t?.close());

  const lookup = async (query: string): Promise<ScannerResult | null> => {
    try {
      return await t.container.scanner.scan({ token, query, clientIp: '127.0.0.1' });
    } catch (error) {
      if ((error as { code?: string }).code === 'product_not_found') return null;
      throw error;
    }
  };

  it('reaches top-1 ≥ 97 % and top-3 ≥ 99 % on the evaluation set', async () => {
    expect(SCANNER_QUERIES.length).toBeGreaterThanOrEqual(60);
    let top1 = 0;
    let top3 = 0;
    const misses: string[] = [];
    for (const { query, expected } of SCANNER_QUERIES) {
      const accepted = new Set(Array.isArray(expected) ? expected : [expected]);
      const result = await lookup(query);
      const names = result ? [result.product.name, ...result.alternatives.map((p) => p.name)] : [];
      const rank = names.findIndex((name) => accepted.has(name));
      if (rank === 0) top1 += 1;
      if (rank >= 0 && rank < 3) top3 += 1;
      if (rank !== 0) misses.push(`  "${query}" → ${names.slice(0, 3).join(' | ') || '(not found)'} (rank ${rank + 1 || '—'})`);
    }
    const percent = (n: number) => ((100 * n) / SCANNER_QUERIES.length).toFixed(1);
    process.stdout.write(
      `scanner quality: top-1 ${percent(top1)}%, top-3 ${percent(top3)}% (${SCANNER_QUERIES.length} queries)\n` +
        (misses.length > 0 ? `${misses.join('\n')}\n` : ''),
    );
    expect(top1 / SCANNER_QUERIES.length).toBeGreaterThanOrEqual(0.97);
    expect(top3 / SCANNER_QUERIES.length).toBeGreaterThanOrEqual(0.99);
  }, 120_000);
});
