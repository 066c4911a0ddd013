import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/secrets.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { runCliOn } from './run-cli.ts';

describe('admin CLI', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  const cli = (...argv: string[]) => runCliOn(t.container, argv);

  it('creates a company and prints exactly the documented JSON shape', async () => {
    const { code, out } = await cli('company', 'create', '--name', 'Ferretería Los Andes', '--cuit', '30-71234567-1', '--json');
    expect(code).toBe(0);
    const json = JSON.parse(out);
    expect(Object.keys(json)).toEqual(['company', 'integration_key', 'scanner_token']);
    expect(Object.keys(json.company)).toEqual(['id', 'name']);
    expect(json.company.name).toBe('Ferretería Los Andes');
    expect(json.integration_key).toMatch(/^mos_int_[A-Za-z0-9_-]{43}$/);
    expect(json.scanner_token).toMatch(/^mos_scn_[A-Za-z0-9_-]{32}$/);
    // Stored hashed (and the key encrypted), never in plain text.
    const [key] = await t.container.db.query<{ key_hash: string; key_encrypted: string }>(
      'SELECT key_hash, key_encrypted FROM integration_keys WHERE company_id = $1',
      [json.company.id],
    );
    expect(key!.key_hash).toBe(sha256Hex(json.integration_key));
    expect(key!.key_encrypted).not.toContain(json.integration_key.slice(8));
    expect(await t.container.companies.findCompanyIdByIntegrationKey(json.integration_key)).toBe(json.company.id);
    expect(await t.container.companies.findCompanyIdByScannerToken(json.scanner_token)).toBe(json.company.id);
  });

  it('rotates only the secrets asked for, and the old ones stop working', async () => {
    const created = JSON.parse((await cli('company', 'create', '--name', 'Rotación', '--json')).out);
    const { code, out } = await cli('company', 'keys', 'rotate', '--company', String(created.company.id), '--scanner', '--json');
    expect(code).toBe(0);
    const rotated = JSON.parse(out);
    expect(rotated.integration_key).toBeUndefined();
    expect(await t.container.companies.findCompanyIdByScannerToken(created.scanner_token)).toBeNull();
    expect(await t.container.companies.findCompanyIdByScannerToken(rotated.scanner_token)).toBe(created.company.id);
    expect(await t.container.companies.findCompanyIdByIntegrationKey(created.integration_key)).toBe(created.company.id);
    const both = JSON.parse((await cli('company', 'keys', 'rotate', '--company', String(created.company.id), '--json')).out);
    expect(both.integration_key).toMatch(/^mos_int_/);
    expect(both.scanner_token).toMatch(/^mos_scn_/);
    expect(await t.container.companies.findCompanyIdByIntegrationKey(created.integration_key)).toBeNull();
    const audit = await t.container.db.query<{ action: string; actor_user_id: number | null }>(
      'SELECT action, actor_user_id FROM audit_log WHERE company_id = $1 ORDER BY id',
      [created.company.id],
    );
    expect(audit).toEqual([
      { action: 'scanner_token.rotated', actor_user_id: null },
      { action: 'integration_key.rotated', actor_user_id: null },
      { action: 'scanner_token.rotated', actor_user_id: null },
    ]);
  });

  it('creates users with roles and prints {user:{id,email}}', async () => {
    const company = JSON.parse((await cli('company', 'create', '--name', 'Usuarios', '--json')).out).company;
    const { code, out } = await cli(
      'user',
      'create',
      '--email',
      'Caja@Example.com',
      '--password',
      'una-clave-larga',
      '--company',
      String(company.id),
      '--role',
      'cashier',
      '--json',
    );
    expect(code).toBe(0);
    const { user } = JSON.parse(out);
    expect(user).toEqual({ id: expect.any(Number), email: 'caja@example.com' });
    expect(await t.container.users.findMembership(user.id, company.id)).toEqual({ role: 'cashier' });
    const admin = JSON.parse(
      (await cli('user', 'create', '--email', 'root@example.com', '--password', 'otra-clave-larga', '--superadmin', '--json'))
        .out,
    );
    expect(await t.container.users.isSuperadmin(admin.user.id)).toBe(true);
  });

  it.each([
    [['company', 'create'], '--name is required'],
    [['company', 'create', '--name', 'X', '--bogus'], "Unknown option '--bogus'"],
    [['company', 'keys', 'rotate', '--company', 'abc'], '--company must be a positive integer'],
    [['user', 'create', '--email', 'a@b.co', '--password', 'x', '--role', 'admin'], '--company and --role go together'],
    [['user', 'create', '--email', 'a@b.co', '--password', 'x', '--company', '1', '--role', 'owner'], '--role must be one of'],
    [['frobnicate'], 'unknown command'],
  ])('exits 2 with usage for %j', async (argv, message) => {
    const { code, err, out } = await cli(...argv);
    expect(code).toBe(2);
    expect(err).toContain(message);
    expect(err).toContain('Usage:');
    expect(out).toBe('');
  });

  it('exits 1 with a clear message when the data is refused, and writes nothing', async () => {
    const before = await t.container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM companies');
    const { code, err } = await cli('company', 'create', '--name', 'Mal CUIT', '--cuit', '20-12345678-5', '--json');
    expect(code).toBe(1);
    expect(err).toContain('is not a valid CUIT');
    const after = await t.container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM companies');
    expect(after).toEqual(before);
    const rotate = await cli('company', 'keys', 'rotate', '--company', '999999');
    expect(rotate.code).toBe(1);
    expect(rotate.err).toContain('company 999999 not found');
  });

  it('disables a user and sets a new password, ending their sessions', async () => {
    await cli('user', 'create', '--email', 'baja@example.com', '--password', 'clave-de-baja-1');
    const disabled = await cli('user', 'disable', '--email', 'BAJA@example.com', '--json');
    expect(disabled.code).toBe(0);
    expect(JSON.parse(disabled.out)).toMatchObject({
      user: { email: 'baja@example.com', disabled_at: expect.any(String) },
      ended_sessions: 0,
    });
    const user = await t.container.users.findUserByEmail('baja@example.com');
    expect(user!.disabledAt).not.toBeNull();
    const changed = await cli('user', 'password', '--email', 'baja@example.com', '--password', 'otra-clave-nueva', '--json');
    expect(changed.code).toBe(0);
    const { verifyPassword } = await import('../../src/lib/secrets.ts');
    const after = await t.container.users.findUserByEmail('baja@example.com');
    expect(await verifyPassword('otra-clave-nueva', after!.passwordHash!)).toBe(true);
    const short = await cli('user', 'password', '--email', 'baja@example.com', '--password', 'corta');
    expect(short.code).toBe(1);
    expect(short.err).toContain('at least 10 characters');
    const unknown = await cli('user', 'disable', '--email', 'nadie@example.com');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('no user with email nadie@example.com');
  });

  it('prints the usage with --help', async () => {
    const { code, out } = await cli('--help');
    expect(code).toBe(0);
    expect(out).toContain('company create --name NAME');
  });
});
