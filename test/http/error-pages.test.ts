import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { login } from '../sessions.ts';

/** What a browser sends when a person opens an address. */
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('an address that fails in the browser is a page in Spanish; the API stays JSON', () => {
  let t: TestApp;
  let admin: string;
  let operator: string;
  beforeAll(async () => {
    t = await buildTestApp();
    const company = await makeCompany(t.container);
    const owner = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const superadmin = await makeUser(t.container, { superadmin: true });
    admin = (await login(t.app, owner.email, owner.password)).cookie;
    operator = (await login(t.app, superadmin.email, superadmin.password)).cookie;
  });
  afterAll(() => t.close());

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

  it('answers an unknown address with a 404 page: what happened, a way back and the request id', async () => {
    const res = await get('/ventas-de-ayer', { ...BROWSER, 'x-request-id': 'req-404-page' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.body).toContain('<html lang="es-AR">');
    expect(res.body).toContain('<h1>Página no encontrada</h1>');
    expect(res.body).toContain('data-code="not_found"');
    expect(res.body).toContain('<a href="/">Ir al inicio</a>');
    expect(res.body).toContain('<code>req-404-page</code>');
    expect(res.body).not.toContain('route GET');
  });

  it('keeps the JSON error for every call that does not ask for HTML, and for the API even when it does', async () => {
    for (const [url, headers] of [
      ['/ventas-de-ayer', {}],
      ['/ventas-de-ayer', { accept: '*/*' }],
      ['/ventas-de-ayer', { accept: 'application/json' }],
      ['/api/v1/no-existe', BROWSER],
    ] as const) {
      const res = await get(url, headers);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toBe('application/json; charset=utf-8');
      expect(res.json(), url).toMatchObject({ code: 'not_found' });
    }
    const posted = await t.app.inject({ method: 'POST', url: '/ventas-de-ayer', headers: BROWSER });
    expect(posted.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('answers a page address with a value it cannot read with a 400 page, picked by the error code', async () => {
    const statement = await get('/clientes/1/estado-de-cuenta?desde=ayer', { ...BROWSER, cookie: admin });
    expect(statement.statusCode).toBe(400);
    expect(statement.body).toContain('<h1>La dirección no es válida</h1>');
    expect(statement.body).toContain('data-code="bad_request"');
    const agent = await get('/superadmin/instagram/agent?before=anteayer', { ...BROWSER, cookie: operator });
    expect(agent.statusCode).toBe(400);
    expect(agent.body).toContain('<h1>La dirección no es válida</h1>');
    // The same address asked for as data is still the JSON error.
    const asData = await get('/superadmin/instagram/agent?before=anteayer', { cookie: operator });
    expect(asData.json()).toMatchObject({ code: 'bad_request' });
  });

  it('answers an address Fastify cannot route with the page too', async () => {
    const res = await get('/clientes/%', BROWSER);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<h1>La dirección no es válida</h1>');
  });

  it('answers a documented address a browser opens with a bad value with the page, and the OpenAPI document says so', async () => {
    // An address that is not valid percent-encoding is a 400, as a page for a browser.
    const res = await get('/docs/%E0%A4%A', BROWSER);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const doc = (await get('/openapi.json')).json();
    const page = doc.paths['/docs/{path}'].get.responses;
    for (const status of ['400', '404', '500', '503']) {
      expect(Object.keys(page[status].content), status).toEqual(expect.arrayContaining(['application/json', 'text/html']));
    }
    // The API's errors are JSON only.
    expect(Object.keys(doc.paths['/api/exchange'].get.responses['503'].content)).toEqual(['application/json']);
  });
});
