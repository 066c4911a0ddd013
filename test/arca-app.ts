import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSelfSignedCertificate, generateKeyPair } from '../src/modules/arca/certs.ts';
import { createFakeArca, type FakeArca } from '../src/modules/arca/fake/fake-arca.ts';
import { buildTestApp, type TestApp, type TestAppOptions } from './app.ts';

/** The CUIT of the service itself: companies delegate their invoicing to it (auth_mode delegation). */
export const SERVICE_CUIT = '20111111112';

/**
 * A test app wired to its own fake ARCA (WSAA and WSFEv1 on local ports) through the service's
 * certificate, self-signed for the occasion; login limits raised for tests that sign in often.
 * `timeoutMs` is ARCA_TIMEOUT_MS (how long a request to ARCA may take); the pauses of a lost
 * answer's recovery are 10, 30, 60 and 120 ms (ARCA_RECOVERY_PAUSE_MS) instead of 250 ms to 3 s, so
 * a test of a lost answer does not sleep 5.5 s; `env` adds to the rest;
 * `overrides` replace parts of the container (as buildTestApp's do).
 */
export async function buildArcaTestApp(
  options: { timeoutMs?: number; env?: Record<string, string>; overrides?: TestAppOptions['overrides'] } = {},
): Promise<{ t: TestApp; fake: FakeArca; close: () => Promise<void> }> {
  const fake = createFakeArca();
  const urls = await fake.listen();
  const dir = mkdtempSync(join(tmpdir(), 'mostrador-arca-'));
  const { keyPem } = generateKeyPair();
  writeFileSync(join(dir, 'service.key'), keyPem);
  writeFileSync(
    join(dir, 'service.crt'),
    createSelfSignedCertificate({
      keyPem,
      cuit: SERVICE_CUIT,
      organization: 'Mostrador',
      commonName: 'mostrador-test',
      days: 30,
    }),
  );
  const t = await buildTestApp({
    env: {
      ARCA_CUIT: SERVICE_CUIT,
      ARCA_CERT_FILE: join(dir, 'service.crt'),
      ARCA_KEY_FILE: join(dir, 'service.key'),
      ARCA_WSAA_URL: urls.wsaaUrl,
      ARCA_WSFE_URL: urls.wsfeUrl,
      ...(options.timeoutMs !== undefined ? { ARCA_TIMEOUT_MS: String(options.timeoutMs) } : {}),
      ARCA_RECOVERY_PAUSE_MS: '10',
      AUTH_LOGIN_LIMIT_PER_CLIENT: '1000',
      AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000',
      ...options.env,
    },
    ...(options.overrides ? { overrides: options.overrides } : {}),
  });
  return {
    t,
    fake,
    close: async () => {
      await t.close();
      await fake.close();
    },
  };
}
