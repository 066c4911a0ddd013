import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDefinition, JobQueue } from '../../src/jobs/queue.ts';
import { createLogger, terminalDestination } from '../../src/logger.ts';
import { createExchangeService, EXCHANGE_REFRESH_JOB } from '../../src/modules/exchange/exchange.service.ts';
import { restartBanner } from '../../src/modules/demo/demo.service.ts';
import { buildTestApp, captureLogs, type TestApp } from '../app.ts';
import { manualClock } from '../sessions.ts';
import { openTestDatabase, type TestDatabase } from '../setup/db.ts';

/** A stream that says it is a terminal, collecting what is written. */
function fakeTerminal() {
  const stream = new PassThrough() as PassThrough & { isTTY: boolean; hasColors: () => boolean };
  stream.isTTY = true;
  stream.hasColors = () => false;
  const chunks: string[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c.toString()));
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => chunks.join('') };
}

describe('a terminal that a person can read', () => {
  it('writes one readable line per entry, in local time, to a terminal; JSON anywhere else', async () => {
    const terminal = fakeTerminal();
    const logger = createLogger('info', terminalDestination(terminal.stream));
    logger.info({ role: 'all', url: 'http://localhost:3000' }, 'mostrador started');
    await new Promise((resolve) => setImmediate(resolve));
    const line = terminal.text();
    expect(line.split('\n').filter(Boolean)).toHaveLength(1);
    expect(line).toMatch(/^\[\d{2}:\d{2}:\d{2}\] INFO: mostrador started \{.*"role":"all"/);
    expect(line).not.toContain('"level"');
    expect(terminalDestination(new PassThrough() as unknown as NodeJS.WriteStream)).toBeUndefined();
  });

  describe('requests', () => {
    let t: TestApp;
    const logs = captureLogs();
    beforeAll(async () => {
      t = await buildTestApp({ overrides: { logger: logs.logger } });
    });
    afterAll(() => t.close());

    it('does not log health probes at info, and logs other requests', async () => {
      await t.app.inject({ url: '/healthz' });
      await t.app.inject({ url: '/readyz' });
      await t.app.inject({ url: '/api/exchange' });
      const urls = logs.lines.map((l) => JSON.parse(l) as { req?: { url: string } }).flatMap((l) => (l.req ? [l.req.url] : []));
      expect(urls).toContain('/api/exchange');
      expect(urls.filter((u) => u === '/healthz' || u === '/readyz')).toEqual([]);
    });
  });

  describe('the exchange rate without network', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openTestDatabase();
    });
    afterAll(() => database.dispose());

    it('warns once an hour, in one line without a stack, naming EXCHANGE_RATE_FIXED', async () => {
      const logs = captureLogs();
      const clock = manualClock();
      const defined = new Map<string, JobDefinition>();
      const jobs = { define: (d: JobDefinition) => defined.set(d.name, d) } as unknown as JobQueue;
      // Port 9 (discard) is closed here: the fetch fails at once, as on a machine without network.
      createExchangeService({
        db: database.db,
        jobs,
        clock,
        logger: logs.logger,
        sourceUrl: 'http://127.0.0.1:9/v1/dolares/oficial',
        fixedRate: null,
      });
      const refresh = defined.get(EXCHANGE_REFRESH_JOB)!;
      const warnings = () =>
        logs.lines.map((l) => JSON.parse(l) as { level: number; msg: string; err?: unknown }).filter((l) => l.level >= 40);
      for (let i = 0; i < 4; i++) {
        await expect(refresh.handler({} as never)).rejects.toThrow();
        clock.advance(15 * 60 * 1000);
      }
      expect(warnings()).toHaveLength(1);
      expect(warnings()[0]!.msg).toContain('EXCHANGE_RATE_FIXED');
      expect(JSON.stringify(warnings()[0])).not.toContain('stack');
      expect(warnings()[0]!.err).toBeUndefined();
      clock.advance(1000);
      await expect(refresh.handler({} as never)).rejects.toThrow();
      expect(warnings()).toHaveLength(2);
    });
  });

  it('tells, on a restart, where the service is and how to get new credentials', () => {
    const text = restartBanner('http://localhost:3000');
    expect(text).toContain('http://localhost:3000/login');
    expect(text).toContain('npm run --silent cli -- user password --email duenio@almacen.demo');
    expect(text).toContain('npm run --silent cli -- company keys rotate --company 1');
  });
});
