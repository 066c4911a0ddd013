import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

/** Issue 25: with several companies the person picks (or lands on the last chosen); never "admin first". */
describe('choosing the company after login, and closing the other sessions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' } });
  });
  afterAll(() => t.close());

  const me = (cookie: string) => t.app.inject({ url: '/api/auth/me', headers: { cookie } });
  const choose = (cookie: string, companyId: number) =>
    t.app.inject({
      method: 'POST',
      url: '/api/auth/company',
      headers: { cookie, ...SAME_ORIGIN },
      payload: { company_id: companyId },
    });

  /** A cashier of the first company who is also admin of a second one. */
  async function twoCompanies() {
    const first = await makeCompany(t.container);
    const second = await makeCompany(t.container);
    const person = await makeUser(t.container, { companyId: first.id, role: 'cashier' });
    await t.container.db.query("INSERT INTO memberships (company_id, user_id, role) VALUES ($1, $2, 'admin')", [
      second.id,
      person.id,
    ]);
    return { first, second, person };
  }

  it('with several companies and no choice yet, no company is taken: the person lands on Mi cuenta to pick', async () => {
    const { person } = await twoCompanies();
    const { cookie, res } = await login(t.app, person.email, person.password);
    expect(res.json().company).toBeNull();
    expect(res.json().companies).toHaveLength(2);
    const home = await t.app.inject({ url: '/', headers: { cookie } });
    expect(home.statusCode).toBe(302);
    expect(home.headers.location).toBe('/cuenta');
    const page = await t.app.inject({ url: '/cuenta', headers: { cookie } });
    expect(page.body).toContain('"company":null');
    // A merchant API call without a chosen company is refused, never run in some company.
    expect((await t.app.inject({ url: '/api/v1/products', headers: { cookie } })).statusCode).toBe(403);
  });

  it('the next login lands on the company chosen last, not on the one where the person is admin', async () => {
    const { first, person } = await twoCompanies();
    const { cookie } = await login(t.app, person.email, person.password);
    const chosen = await choose(cookie, first.id);
    expect(chosen.statusCode, chosen.body).toBe(200);
    expect(chosen.json().company).toMatchObject({ id: first.id, role: 'cashier' });
    const again = await login(t.app, person.email, person.password);
    expect(again.res.json().company).toMatchObject({ id: first.id, role: 'cashier' });
    expect((await t.app.inject({ url: '/', headers: { cookie: again.cookie } })).headers.location).toBe('/caja');
  });

  it('a person with one company lands on it; a company that is not theirs cannot be chosen', async () => {
    const company = await makeCompany(t.container);
    const stranger = await makeCompany(t.container);
    const person = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const { cookie, res } = await login(t.app, person.email, person.password);
    expect(res.json().company).toMatchObject({ id: company.id, role: 'admin' });
    expect((await choose(cookie, stranger.id)).statusCode).toBe(404);
  });

  it('"Cerrar las otras sesiones" ends every other session of the person and keeps this one', async () => {
    const company = await makeCompany(t.container);
    const person = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const here = await login(t.app, person.email, person.password);
    const phone = await login(t.app, person.email, person.password);
    const laptop = await login(t.app, person.email, person.password);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/sessions/end-others',
      headers: { cookie: here.cookie, ...SAME_ORIGIN },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ended_sessions: 2 });
    expect((await me(here.cookie)).statusCode).toBe(200);
    expect((await me(phone.cookie)).statusCode).toBe(401);
    expect((await me(laptop.cookie)).statusCode).toBe(401);
    const page = await t.app.inject({ url: '/cuenta', headers: { cookie: here.cookie } });
    expect(page.statusCode).toBe(200);
    // Without the same-origin header the write is refused (CSRF), like every session write.
    const crossSite = await t.app.inject({
      method: 'POST',
      url: '/api/auth/sessions/end-others',
      headers: { cookie: here.cookie, origin: 'https://evil.example' },
    });
    expect(crossSite.statusCode).toBe(403);
  });
});
