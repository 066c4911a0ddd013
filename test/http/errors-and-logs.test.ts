import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/lib/errors.ts';
import { buildTestApp, captureLogs, type TestApp } from '../app.ts';
import { registerSurface } from '../../src/http/surfaces.ts';

describe('error answers and logs', () => {
  let t: TestApp;
  const logs = captureLogs();
  beforeAll(async () => {
    t = await buildTestApp({ overrides: { logger: logs.logger } });
  });
  afterAll(() => t.close());

  it('answers an unknown error as 500 internal with nothing internal leaked', async () => {
    const { buildApp } = await import('../../src/app.ts');
    const app = await buildApp(t.container);
    await registerSurface(app, 'public', {}, (scope) => {
      scope.get('/boom', async () => {
        throw new Error('connection to 10.0.0.5 failed: password authentication failed for user "mostrador"');
      });
      scope.get('/conflict', async () => {
        throw new AppError('conflict', 'sale 5 already exists');
      });
      scope.post(
        '/echo',
        { schema: { body: { type: 'object', required: ['a'], properties: { a: { type: 'integer' } } } } },
        async () => ({}),
      );
    });
    const boom = await app.inject({ method: 'GET', url: '/boom' });
    expect(boom.statusCode).toBe(500);
    expect(boom.json()).toEqual({ error: 'internal error', code: 'internal' });
    const conflict = await app.inject({ method: 'GET', url: '/conflict' });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toEqual({ error: 'sale 5 already exists', code: 'conflict' });
    const invalid = await app.inject({ method: 'POST', url: '/echo', payload: { a: 'x' } });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json()).toMatchObject({
      code: 'validation_failed',
      details: [{ path: '/a', message: 'must be integer' }],
    });
    const badJson = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"a":',
    });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.json()).toEqual({ error: 'request body is not valid JSON', code: 'invalid_json' });
    // Latin-1 bytes are not read as U+FFFD: the body is refused whole.
    const notUtf8 = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: Buffer.from('{"a":"caf\u00e9"}', 'latin1'),
    });
    expect(notUtf8.statusCode).toBe(400);
    expect(notUtf8.json()).toEqual({ error: 'request body is not valid JSON: it is not UTF-8 text', code: 'invalid_json' });
    const tooBig = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: `{"a":"${'x'.repeat(1_100_000)}"}`,
    });
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json().code).toBe('payload_too_large');
    await app.close();
  });

  it("never writes authorization, cookies, signatures, token query parameters or a statement link's token to the log", async () => {
    await t.app.inject({
      method: 'GET',
      url: '/api/exchange?token=mos_scn_SECRETSCANNER&x=1',
      headers: {
        authorization: 'Bearer mos_int_SECRETINTEGRATION',
        cookie: 'session=SECRETCOOKIE',
        'x-signature': 'SECRETSIGNATURE',
      },
    });
    // A shared account statement's link is its own key: the token in its path is masked too.
    await t.app.inject({ method: 'GET', url: '/estado-de-cuenta/SECRETSTATEMENTLINK?x=1' });
    const text = logs.lines.join('\n');
    expect(text).toContain('/api/exchange?token=[Redacted]&x=1');
    expect(text).toContain('/estado-de-cuenta/[Redacted]?x=1');
    for (const secret of ['SECRETSCANNER', 'SECRETINTEGRATION', 'SECRETCOOKIE', 'SECRETSIGNATURE', 'SECRETSTATEMENTLINK'])
      expect(text).not.toContain(secret);
  });
});
