import pg from 'pg';
import { afterEach } from 'vitest';

/**
 * Fails a test in which a query was queued on a connection already running another (a Promise.all
 * over one transaction): node-postgres 8 warns once per process and runs them in turn, node-postgres
 * 9 refuses them. Reads that may run at once go through readTogether (src/db/client.ts).
 */
const PATCHED = Symbol.for('mostrador.one-query-per-connection');
type Client = pg.Client & { _queryQueue?: unknown[]; pipeline?: boolean; [PATCHED]?: string[] };
const proto = pg.Client.prototype as Client;
// The suite runs without per-file isolation (vitest.config.ts): this file runs again before each
// test file but pg is imported once per worker, so the patch is made once and the list it fills
// is kept with it, where every file's afterEach below reads it.
if (!proto[PATCHED]) {
  const queued: string[] = [];
  const query = proto.query;
  proto.query = function (this: Client, ...args: unknown[]) {
    if ((this._queryQueue?.length ?? 0) > 0 && !this.pipeline) {
      const text = (args[0] as { text?: string } | string | undefined) ?? '';
      const sql = (typeof text === 'string' ? text : (text.text ?? '')).replace(/\s+/g, ' ').slice(0, 120);
      queued.push(`${sql}\n${new Error().stack?.split('\n').slice(2, 12).join('\n')}`);
    }
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof proto.query;
  proto[PATCHED] = queued;
}

afterEach(() => {
  const found = proto[PATCHED]!.splice(0);
  if (found.length > 0) throw new Error(`queries queued on a busy connection:\n- ${found.join('\n- ')}`);
});
