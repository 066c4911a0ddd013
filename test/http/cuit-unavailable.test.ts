import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cuitCheckDigit } from '../../src/lib/cuit.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

/** Issue 25: a CUIT another company has is refused without naming anything; the operator resolves it. */
describe('CUIT already claimed elsewhere', () => {
  let t: TestApp;
  let asOperator: Record<string, string>;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' } });
    const operator = await makeUser(t.container, { superadmin: true });
    asOperator = { cookie: (await login(t.app, operator.email, operator.password)).cookie, ...SAME_ORIGIN };
  });
  afterAll(() => t.close());

  function randomCuit(): string {
    for (;;) {
      const body = `30${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
      const check = cuitCheckDigit(body);
      if (check >= 0) return `${body}${check}`;
    }
  }

  async function shop(cuit?: string) {
    const company = await makeCompany(t.container, cuit ? { cuit } : {});
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    return { company, asAdmin };
  }
  const putFiscal = (headers: Record<string, string>, body: unknown) =>
    t.app.inject({ method: 'PUT', url: '/api/v1/fiscal', headers, payload: body as object });
  const detail = async (id: number) =>
    (await t.app.inject({ url: `/api/superadmin/companies/${id}`, headers: asOperator })).json().company;

  it('answers a neutral 422 cuit_unavailable that names no company, and changes nothing', async () => {
    const cuit = randomCuit();
    const holder = await shop(cuit);
    const other = await shop();
    const before = (await t.app.inject({ url: '/api/v1/fiscal', headers: other.asAdmin })).json();
    const res = await putFiscal(other.asAdmin, { cuit, legal_name: 'Otra SRL' });
    expect(res.statusCode).toBe(422);
    const body = res.json();
    expect(body).toMatchObject({ code: 'cuit_unavailable' });
    expect(body.error).not.toContain(holder.company.company.name);
    expect(body.error).not.toMatch(new RegExp(`\\b${holder.company.id}\\b`));
    expect(body.error).not.toMatch(/another company|belongs/);
    expect((await t.app.inject({ url: '/api/v1/fiscal', headers: other.asAdmin })).json()).toEqual(before);
    // A CUIT nobody has is answered the same way as always: saved.
    const free = randomCuit();
    const ok = await putFiscal(other.asAdmin, { cuit: free });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().cuit).toBe(free);
  });

  it('the operator sees the claim with the holder on the company page, and moves the CUIT', async () => {
    const cuit = randomCuit();
    const holder = await shop(cuit);
    const claimer = await shop();
    expect((await putFiscal(claimer.asAdmin, { cuit })).statusCode).toBe(422);
    const seen = await detail(claimer.company.id);
    expect(seen.cuit_claims).toEqual([
      { cuit, claimed_at: expect.any(String), holder: { id: holder.company.id, name: holder.company.company.name } },
    ]);
    const page = await t.app.inject({ url: `/superadmin/companies/${claimer.company.id}`, headers: asOperator });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(holder.company.company.name);

    const moved = await t.app.inject({
      method: 'POST',
      url: `/api/superadmin/companies/${claimer.company.id}/cuit-claims/${cuit}`,
      headers: asOperator,
      payload: { action: 'move' },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().company).toMatchObject({ cuit, cuit_claims: [] });
    expect((await detail(holder.company.id)).cuit).toBeNull();
    const audit = await t.app.inject({ url: `/api/superadmin/companies/${holder.company.id}/audit`, headers: asOperator });
    expect(audit.json().entries.map((e: { action: string }) => e.action)).toContain('company.cuit_moved');
  });

  it('the operator can dismiss a claim; a claim that does not exist is a 404; a company admin cannot resolve', async () => {
    const cuit = randomCuit();
    await shop(cuit);
    const claimer = await shop();
    await putFiscal(claimer.asAdmin, { cuit });
    const url = `/api/superadmin/companies/${claimer.company.id}/cuit-claims/${cuit}`;
    const asCompany = await t.app.inject({ method: 'POST', url, headers: claimer.asAdmin, payload: { action: 'move' } });
    expect(asCompany.statusCode).toBe(403);
    const dismissed = await t.app.inject({ method: 'POST', url, headers: asOperator, payload: { action: 'dismiss' } });
    expect(dismissed.statusCode).toBe(200);
    expect(dismissed.json().company).toMatchObject({ cuit: null, cuit_claims: [] });
    const again = await t.app.inject({ method: 'POST', url, headers: asOperator, payload: { action: 'dismiss' } });
    expect(again.statusCode).toBe(404);
  });
});
