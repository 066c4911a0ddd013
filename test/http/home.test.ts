import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { login } from '../sessions.ts';

describe('home page redirect', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  async function landing(cookie?: string) {
    const res = await t.app.inject({ method: 'GET', url: '/', headers: cookie ? { cookie } : {} });
    expect(res.statusCode).toBe(302);
    return res.headers.location;
  }

  it('sends each person where their work is', async () => {
    const company = await makeCompany(t.container);
    const operator = await makeUser(t.container, { superadmin: true });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    expect(await landing()).toBe('/docs');
    expect(await landing((await login(t.app, operator.email, operator.password)).cookie)).toBe('/superadmin/companies');
    expect(await landing((await login(t.app, admin.email, admin.password)).cookie)).toBe('/inicio');
    // A cashier lands on the register, like every point of sale, never on the docs.
    expect(await landing((await login(t.app, cashier.email, cashier.password)).cookie)).toBe('/caja');
  });
});
