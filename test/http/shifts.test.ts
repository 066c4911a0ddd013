import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { runCliOn } from '../cli/run-cli.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

/** Shifts belong to a person at a box (issue 29): own count, handover, per-person closes, offline ids. */
describe('per-person shifts (/api/v1/box-sessions)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' } });
  });
  afterAll(() => t.close());

  type Headers = Record<string, string>;
  const call = (method: string, url: string, headers: Headers, payload?: unknown) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

  async function person(companyId: number, role: 'admin' | 'cashier') {
    const user = await makeUser(t.container, { companyId, role });
    return { user, headers: { cookie: (await login(t.app, user.email, user.password)).cookie, ...SAME_ORIGIN } as Headers };
  }

  async function shop() {
    const company = await makeCompany(t.container);
    const owner = await person(company.id, 'admin');
    const ana = await person(company.id, 'cashier');
    const beto = await person(company.id, 'cashier');
    const yerba = await makeProduct(t.container, company.id, { name: 'Yerba', basePrice: 3200, stock: 50 });
    return { company, owner, ana, beto, yerba };
  }

  const sell = (headers: Headers, productId: number, cash = 3200) =>
    call(
      'POST',
      '/api/v1/sales',
      { ...headers, 'x-idempotency-key': randomUUID() },
      {
        box_id: 1,
        items: [{ product_id: productId, quantity: 1 }],
        payments: [{ method: 'efectivo', amount: cash }],
      },
    );

  async function counts(companyId: number) {
    const [row] = await t.container.db.query<{ sales: number; sessions: number; moves: number }>(
      `SELECT (SELECT count(*)::int FROM sales WHERE company_id = $1) AS sales,
        (SELECT count(*)::int FROM box_sessions WHERE company_id = $1) AS sessions,
        (SELECT count(*)::int FROM box_cash_moves WHERE company_id = $1) AS moves`,
      [companyId],
    );
    return row!;
  }

  async function verify(companyId: number) {
    const { code, out } = await runCliOn(t.container, ['books', 'verify', '--company', String(companyId), '--json']);
    return { code, report: JSON.parse(out) as { ok: boolean; checks: { name: string; ok: boolean; detail: unknown }[] } };
  }

  it('each person opens with their own count and works only in their own shift; a handover closes one and opens the next', async () => {
    const s = await shop();
    // The owner opens Caja 1 with $ 45.500.
    const opened = await call('POST', '/api/v1/box-sessions', s.owner.headers, { box_id: 1, opening_cash: 45_500 });
    expect(opened.statusCode, opened.body).toBe(201);
    const ownerShift = opened.json().session;
    expect(ownerShift).toMatchObject({ user_id: s.owner.user.id, opening_cash: 45_500, status: 'open' });
    expect((await sell(s.owner.headers, s.yerba.id)).statusCode).toBe(201);

    // A new cashier does not land in the owner's shift: opening, selling and paying in it are refused, nothing written.
    const before = await counts(s.company.id);
    const refusedOpen = await call('POST', '/api/v1/box-sessions', s.ana.headers, { box_id: 1, opening_cash: 100 });
    expect(refusedOpen.statusCode).toBe(409);
    expect(refusedOpen.json().code).toBe('shift_of_another_person');
    const refusedSale = await sell(s.ana.headers, s.yerba.id);
    expect(refusedSale.statusCode).toBe(409);
    expect(refusedSale.json().code).toBe('shift_of_another_person');
    // A cashier does not see another person's shift at all.
    expect(
      (await call('POST', `/api/v1/box-sessions/${ownerShift.id}/cash`, s.ana.headers, { kind: 'in', amount: 1, reason: 'x' }))
        .statusCode,
    ).toBe(404);
    expect(
      (await call('POST', `/api/v1/box-sessions/${ownerShift.id}/close`, s.ana.headers, { counted: { efectivo: 1 } })).statusCode,
    ).toBe(404);
    expect(await counts(s.company.id)).toEqual(before);
    // The register shows whose shift is open at the box.
    const state = (await call('GET', '/api/v1/register', s.ana.headers)).json();
    expect(state.boxes[0]).toMatchObject({ open_session_id: ownerShift.id, open_session_user_id: s.owner.user.id });
    expect(state.user_id).toBe(s.ana.user.id);

    // The handover: the owner's shift closes with its count, Ana's opens with hers.
    const handover = await call('POST', `/api/v1/box-sessions/${ownerShift.id}/handover`, s.ana.headers, {
      counted: { efectivo: 48_700 },
      opening_cash: 48_700,
      note: 'relevo de la tarde',
    });
    expect(handover.statusCode, handover.body).toBe(201);
    const { closed, session: anaShift } = handover.json();
    expect(closed.session).toMatchObject({
      id: ownerShift.id,
      status: 'closed',
      handed_over_to: anaShift.id,
      closed_by: s.ana.user.email,
    });
    expect(closed.expected).toEqual({ efectivo: 48_700 });
    expect(closed.difference).toEqual({ efectivo: 0 });
    expect(anaShift).toMatchObject({ user_id: s.ana.user.id, opening_cash: 48_700, status: 'open', box_id: 1 });

    // Sales and cash moves land in the shift of the person who makes them.
    const anaSale = await sell(s.ana.headers, s.yerba.id, 5000);
    expect(anaSale.statusCode, anaSale.body).toBe(201);
    expect(anaSale.json().sale).toMatchObject({ box_session_id: anaShift.id, sold_by: s.ana.user.email });
    expect(
      (
        await call('POST', `/api/v1/box-sessions/${anaShift.id}/cash`, s.ana.headers, {
          kind: 'out',
          amount: 500,
          reason: 'proveedor',
        })
      ).statusCode,
    ).toBe(201);
    // The owner now works in no shift at Caja 1: refused too (he sees it, but it is Ana's).
    const ownerSale = await sell(s.owner.headers, s.yerba.id);
    expect(ownerSale.statusCode).toBe(409);
    const ownerMove = await call('POST', `/api/v1/box-sessions/${anaShift.id}/cash`, s.owner.headers, {
      kind: 'in',
      amount: 1,
      reason: 'x',
    });
    expect(ownerMove.json().code).toBe('shift_of_another_person');
    // A read-write API token acts for the company: it sells in the open shift (unchanged API).
    const secret = (
      await call('POST', '/api/v1/api-tokens', s.owner.headers, { name: `t-${randomUUID()}`, scope: 'read-write' })
    ).json().secret;
    const bySystem = await sell({ authorization: `Bearer ${secret}` }, s.yerba.id);
    expect(bySystem.statusCode, bySystem.body).toBe(201);
    expect(bySystem.json().sale.box_session_id).toBe(anaShift.id);

    // Beto takes over from Ana; Ana's close is hers to read, Beto's is his, the owner sees all.
    const handoverBody = { counted: { efectivo: 48_700 + 3200 * 2 - 500 }, opening_cash: 0, client_id: randomUUID() };
    const second = await call('POST', `/api/v1/box-sessions/${anaShift.id}/handover`, s.beto.headers, handoverBody);
    expect(second.statusCode, second.body).toBe(201);
    const betoShift = second.json().session;
    // The same handover sent again (its answer was lost) answers the same two shifts and opens nothing.
    const again = await call('POST', `/api/v1/box-sessions/${anaShift.id}/handover`, s.beto.headers, handoverBody);
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toEqual(second.json());
    const list = async (h: Headers, q = '') =>
      ((await call('GET', `/api/v1/box-sessions${q}`, h)).json().sessions as { session: { id: number; user_id: number } }[]).map(
        (r) => r.session.id,
      );
    expect(await list(s.ana.headers)).toEqual([anaShift.id]);
    expect(await list(s.beto.headers)).toEqual([betoShift.id]);
    expect(await list(s.owner.headers)).toEqual([betoShift.id, anaShift.id, ownerShift.id]);
    expect(await list(s.owner.headers, `?user_id=${s.ana.user.id}`)).toEqual([anaShift.id]);
    // A cashier asking for another's shifts still gets only their own.
    expect(await list(s.beto.headers, `?user_id=${s.ana.user.id}`)).toEqual([]);
    expect((await call('GET', `/api/v1/box-sessions/${anaShift.id}`, s.beto.headers)).statusCode).toBe(404);
    const anaReport = (await call('GET', `/api/v1/box-sessions/${anaShift.id}`, s.ana.headers)).json();
    expect(anaReport).toMatchObject({ sales: { count: 2, total: 6400 }, cash_out: 500, difference: { efectivo: 0 } });
    // A cashier closes her own shift; the owner may close anyone's.
    expect(
      (await call('POST', `/api/v1/box-sessions/${betoShift.id}/close`, s.owner.headers, { counted: { efectivo: 0 } }))
        .statusCode,
    ).toBe(200);

    const { code, report } = await verify(s.company.id);
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(code).toBe(0);
    expect(report.checks.map((c) => c.name)).toContain('shift_people');
  });

  it("a pending sale is paid in the shift of the person who takes the money, never in another's", async () => {
    const s = await shop();
    const anaShift = (await call('POST', '/api/v1/box-sessions', s.ana.headers, { box_id: 1, opening_cash: 0 })).json().session;
    const pending = await call(
      'POST',
      '/api/v1/sales',
      { ...s.ana.headers, 'x-idempotency-key': randomUUID() },
      {
        box_id: 1,
        items: [{ product_id: s.yerba.id, quantity: 1 }],
      },
    );
    expect(pending.json().sale.status).toBe('pending');
    const saleId = pending.json().sale.id;
    const betoShift = (
      await call('POST', `/api/v1/box-sessions/${anaShift.id}/handover`, s.beto.headers, {
        counted: { efectivo: 0 },
        opening_cash: 0,
      })
    ).json().session;
    const byAna = await call('POST', `/api/v1/sales/${saleId}/pay`, s.ana.headers, {
      payments: [{ method: 'efectivo', amount: 3200 }],
    });
    expect(byAna.statusCode).toBe(409);
    expect(byAna.json().code).toBe('shift_of_another_person');
    const byBeto = await call('POST', `/api/v1/sales/${saleId}/pay`, s.beto.headers, {
      payments: [{ method: 'efectivo', amount: 3200 }],
    });
    expect(byBeto.statusCode, byBeto.body).toBe(200);
    expect(byBeto.json().sale.payments).toEqual([expect.objectContaining({ box_session_id: betoShift.id, amount: 3200 })]);
    expect((await verify(s.company.id)).code).toBe(0);
  });

  it("books verify finds a sale booked in another person's shift", async () => {
    const s = await shop();
    const shift = (await call('POST', '/api/v1/box-sessions', s.ana.headers, { box_id: 1, opening_cash: 0 })).json().session;
    const sale = (await sell(s.ana.headers, s.yerba.id)).json().sale;
    await t.container.db.query('UPDATE register_sales SET sold_by_user_id = $1 WHERE company_id = $2 AND sale_id = $3', [
      s.beto.user.id,
      s.company.id,
      sale.id,
    ]);
    const { code, report } = await verify(s.company.id);
    expect(code).not.toBe(0);
    expect(report.checks.find((c) => c.name === 'shift_people')).toMatchObject({
      ok: false,
      detail: {
        violations: 1,
        rows: [expect.objectContaining({ session_id: shift.id, problem: 'sale_in_another_shift', ref_id: sale.id })],
      },
    });
  });

  it('a shift opened and closed offline is synced once: the same client ids answer the same shift and close', async () => {
    const s = await shop();
    const clientId = randomUUID();
    const closeId = randomUUID();
    const openedAt = new Date(Date.now() - 3600_000).toISOString();
    const body = { box_id: 1, opening_cash: 2000, client_id: clientId, opened_at: openedAt };
    // A shift opened more than 7 days ago (the register's offline queue holds a week) names the field.
    const stale = await call('POST', '/api/v1/box-sessions', s.ana.headers, {
      ...body,
      client_id: randomUUID(),
      opened_at: '0001-01-01T00:00:00Z',
    });
    expect(stale.json()).toMatchObject({ code: 'validation_failed', details: [{ path: '/opened_at' }] });
    const first = await call('POST', '/api/v1/box-sessions', s.ana.headers, body);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().session).toMatchObject({ client_id: clientId, opened_at: openedAt });
    const again = await call('POST', '/api/v1/box-sessions', s.ana.headers, body);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replay']).toBe('true');
    expect(again.json().session.id).toBe(first.json().session.id);
    // Another body with the same client id is refused.
    expect((await call('POST', '/api/v1/box-sessions', s.ana.headers, { ...body, opening_cash: 1 })).statusCode).toBe(409);
    const byClient = await call('GET', `/api/v1/register/offline-shifts/${clientId}`, s.ana.headers);
    expect(byClient.json().session.id).toBe(first.json().session.id);

    const id = first.json().session.id;
    const close = { counted: { efectivo: 2000 }, client_id: closeId, closed_at: new Date().toISOString() };
    const closed = await call('POST', `/api/v1/box-sessions/${id}/close`, s.ana.headers, close);
    expect(closed.statusCode, closed.body).toBe(200);
    const replay = await call('POST', `/api/v1/box-sessions/${id}/close`, s.ana.headers, close);
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual(closed.json());
    // Without the close's client id, a closed shift stays closed (422).
    expect(
      (await call('POST', `/api/v1/box-sessions/${id}/close`, s.ana.headers, { counted: { efectivo: 2000 } })).statusCode,
    ).toBe(422);
    const rows = await t.container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM box_sessions WHERE company_id = $1', [
      s.company.id,
    ]);
    expect(rows[0]!.n).toBe(1);
    expect((await verify(s.company.id)).code).toBe(0);
  });

  it('a drawer past 2^53 cents: its report, close and audit answer the exact pesos, and the books stay clean', async () => {
    // Each amount fits its column (cash moves up to $ 999.999.999.999), but 91 of them in one
    // drawer add up past the cents a double holds exactly (2^53 ≈ $ 90.071.992.547.409,91).
    const s = await shop();
    const most = 999_999_999_999;
    const opened = await call('POST', '/api/v1/box-sessions', s.ana.headers, { box_id: 1, opening_cash: most });
    expect(opened.statusCode).toBe(201);
    const id = opened.json().session.id;
    for (let n = 0; n < 90; n++) {
      const moved = await call('POST', `/api/v1/box-sessions/${id}/cash`, s.ana.headers, {
        kind: 'in',
        amount: most,
        reason: 'x',
      });
      expect(moved.statusCode).toBe(201);
    }
    await sell(s.ana.headers, s.yerba.id);
    const expected = 91 * most + 3200; // 91.000.000.003.109 pesos: exact as a double in pesos, not in cents
    const open = await call('GET', `/api/v1/box-sessions/${id}`, s.ana.headers);
    expect(open.statusCode).toBe(200);
    expect(open.json()).toMatchObject({ expected: { efectivo: expected }, cash_in: 90 * most });
    const closed = await call('POST', `/api/v1/box-sessions/${id}/close`, s.ana.headers, { counted: { efectivo: most } });
    expect(closed.statusCode).toBe(200);
    expect(closed.json()).toMatchObject({
      expected: { efectivo: expected },
      counted: { efectivo: most },
      difference: { efectivo: most - expected },
    });
    const [stored] = await t.container.db.query<{ expected: Record<string, string> }>(
      'SELECT expected FROM box_sessions WHERE company_id = $1 AND id = $2',
      [s.company.id, id],
    );
    expect(stored!.expected).toEqual({ efectivo: '91000000003109.00' });
    const again = await call('GET', `/api/v1/box-sessions/${id}`, s.owner.headers);
    expect(again.json()).toMatchObject({ expected: { efectivo: expected }, difference: { efectivo: most - expected } });
    const books = await verify(s.company.id);
    expect(books.report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(books.code).toBe(0);
  });

  it("tenancy: another company's shift, handover and client id answer 404 and change nothing", async () => {
    const a = await shop();
    const b = await shop();
    const clientId = randomUUID();
    const shift = (
      await call('POST', '/api/v1/box-sessions', a.ana.headers, { box_id: 1, opening_cash: 0, client_id: clientId })
    ).json().session;
    const before = await counts(a.company.id);
    for (const [method, url, payload] of [
      ['GET', `/api/v1/box-sessions/${shift.id}`, undefined],
      ['GET', `/api/v1/register/offline-shifts/${clientId}`, undefined],
      ['POST', `/api/v1/box-sessions/${shift.id}/handover`, { counted: { efectivo: 0 }, opening_cash: 0 }],
      ['POST', `/api/v1/box-sessions/${shift.id}/close`, { counted: { efectivo: 0 } }],
    ] as const) {
      const res = await call(method, url, b.owner.headers, payload);
      expect([url, res.statusCode]).toEqual([url, 404]);
      expect(res.body).not.toContain(a.ana.user.email);
    }
    // B's own box 1 is untouched by A's shift: B opens there freely, with the same client id even.
    const own = await call('POST', '/api/v1/box-sessions', b.owner.headers, { box_id: 1, opening_cash: 0, client_id: clientId });
    expect(own.statusCode).toBe(201);
    expect(own.json().session.id).not.toBe(undefined);
    expect(await counts(a.company.id)).toEqual(before);
    expect((await call('GET', '/api/v1/box-sessions', b.owner.headers)).json().sessions).toHaveLength(1);
  });
});

describe('a temporary password must be changed first', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' } });
  });
  afterAll(() => t.close());

  it('after a reset, every page and API but the password change answers password_change_required until it is changed', async () => {
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const reset = await t.app.inject({
      method: 'POST',
      url: `/api/settings/members/${cashier.id}/reset-password`,
      headers: asAdmin,
    });
    expect(reset.statusCode, reset.body).toBe(200);
    const temporary = reset.json().temporary_password as string;

    const headers = { cookie: (await login(t.app, cashier.email, temporary)).cookie, ...SAME_ORIGIN };
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers });
    const api = await get('/api/v1/register');
    expect(api.statusCode).toBe(403);
    expect(api.json().code).toBe('password_change_required');
    const opening = await t.app.inject({
      method: 'POST',
      url: '/api/v1/box-sessions',
      headers,
      payload: { box_id: 1, opening_cash: 0 },
    });
    expect(opening.json().code).toBe('password_change_required');
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/box-sessions', headers })).json().code).toBe(
      'password_change_required',
    );
    const page = await get('/caja');
    expect(page.statusCode).toBe(302);
    expect(page.headers.location).toBe('/cuenta');
    const account = await get('/cuenta');
    expect(account.statusCode).toBe(200);
    expect(account.body).toContain('"must_change_password":true');
    expect((await get('/api/auth/me')).json().must_change_password).toBe(true);
    // Nothing was opened while the password was temporary.
    const [row] = await t.container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM box_sessions WHERE company_id = $1', [
      company.id,
    ]);
    expect(row!.n).toBe(0);

    // A wrong temporary password changes nothing.
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/auth/password',
      headers,
      payload: { current_password: 'not-the-one', new_password: 'una-clave-nueva-larga' },
    });
    expect(wrong.statusCode).toBe(422);
    expect((await get('/api/v1/register')).statusCode).toBe(403);

    const changed = await t.app.inject({
      method: 'POST',
      url: '/api/auth/password',
      headers,
      payload: { current_password: temporary, new_password: 'una-clave-nueva-larga' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await get('/api/v1/register')).statusCode).toBe(200);
    expect((await get('/caja')).statusCode).toBe(200);
    expect((await get('/api/auth/me')).json().must_change_password).toBe(false);
    // The admin who reset it never had to change theirs.
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/register', headers: asAdmin })).statusCode).toBe(200);
  });
});
