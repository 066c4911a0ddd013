import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { runCliOn } from '../cli/run-cli.ts';

describe('whatsapp CLI', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t?.close());

  it('sets up the channel from a token file, keeps it encrypted and never prints it', async () => {
    const token = `EAAG${'a1'.repeat(30)}`;
    const file = join(tmpdir(), `wa-token-${process.pid}.txt`);
    writeFileSync(file, `${token}\n`);
    const res = await runCliOn(t.container, [
      'whatsapp',
      'setup',
      '--phone-number-id',
      '106540352242922',
      '--waba-id',
      '102290129340398',
      '--token-file',
      file,
      '--json',
    ]);
    expect(res.code).toBe(0);
    expect(res.out).not.toContain(token);
    expect(JSON.parse(res.out).status).toMatchObject({ connected: true, phone_number_id: '106540352242922' });
    const [row] = await t.container.db.query<{ token_encrypted: string }>('SELECT token_encrypted FROM whatsapp_channel');
    expect(t.container.cipher.decrypt(row!.token_encrypted)).toBe(token);

    const on = await runCliOn(t.container, ['whatsapp', 'agent', '--on']);
    expect(on.code).toBe(0);
    expect((await t.container.whatsapp.service.status()).agent_enabled).toBe(true);
  });

  it('refuses bad ids (1) and missing options (2)', async () => {
    const file = join(tmpdir(), `wa-token2-${process.pid}.txt`);
    writeFileSync(file, 'EAAG-long-enough-token-0123456789');
    const bad = await runCliOn(t.container, [
      'whatsapp',
      'setup',
      '--phone-number-id',
      'x',
      '--waba-id',
      '1',
      '--token-file',
      file,
    ]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('not valid');
    const missing = await runCliOn(t.container, ['whatsapp', 'setup', '--waba-id', '1']);
    expect(missing.code).toBe(2);
    expect((await runCliOn(t.container, ['whatsapp', 'agent'])).code).toBe(2);
  });
});
