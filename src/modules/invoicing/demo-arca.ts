import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../logger.ts';
import { createSelfSignedCertificate, generateKeyPair } from '../arca/certs.ts';
import { createFakeArca } from '../arca/fake/fake-arca.ts';

/** The CUIT the demo's service certificate represents (valid check digit; not a real taxpayer). */
export const DEMO_SERVICE_CUIT = '20111111112';

export interface DemoArca {
  wsaaUrl: string;
  wsfeUrl: string;
  serviceCuit: string;
  certPem: string;
  keyPem: string;
  close(): Promise<void>;
}

/**
 * The built-in fake ARCA the demo company invoices against (ARCA_DEMO_FAKE): the same fake as
 * `npm run fake:arca`, listening on a free loopback port of this process, with a service
 * certificate generated once and kept in DATA_DIR/arca-demo/. Its receipts and tickets are kept
 * there too, so numbering survives a restart of the demo; the login windows are not (a new
 * database logs in again).
 */
export async function startDemoArca({ dataDir, logger }: { dataDir: string; logger: Logger }): Promise<DemoArca> {
  const dir = join(dataDir, 'arca-demo');
  mkdirSync(dir, { recursive: true });
  const keyFile = join(dir, 'service.key');
  const certFile = join(dir, 'service.crt');
  if (!existsSync(keyFile) || !existsSync(certFile)) {
    const { keyPem } = generateKeyPair();
    const certPem = createSelfSignedCertificate({
      keyPem,
      cuit: DEMO_SERVICE_CUIT,
      organization: 'Mostrador demo',
      commonName: 'mostrador-demo',
      days: 3650,
    });
    writeFileSync(keyFile, keyPem, { mode: 0o600 });
    writeFileSync(certFile, certPem);
  }
  const stateFile = join(dir, 'state.json');
  const fake = createFakeArca({ stateFile });
  // The demo's database may be newer than this state (DATA_DIR/pglite deleted to start over, another
  // DATABASE_URL): ARCA's "one login per ticket window" would then refuse the demo its ticket for up
  // to 12 hours. The fake forgets the windows when it starts; the tickets it gave stay valid.
  fake.control.forgetLogins();
  const { wsaaUrl, wsfeUrl } = await fake.listen(0, '127.0.0.1');
  logger.info({ wsaaUrl, wsfeUrl }, 'demo ARCA fake listening (ARCA_DEMO_FAKE)');
  return {
    wsaaUrl,
    wsfeUrl,
    serviceCuit: DEMO_SERVICE_CUIT,
    certPem: readFileSync(certFile, 'utf8'),
    keyPem: readFileSync(keyFile, 'utf8'),
    close: () => fake.close(),
  };
}
