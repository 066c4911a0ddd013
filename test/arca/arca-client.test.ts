import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  certificateSerial,
  createCsr,
  createSelfSignedCertificate,
  describeCertificate,
  generateKeyPair,
  keyMatchesCertificate,
} from '../../src/modules/arca/certs.ts';
import { signLoginTicketRequest, verifyLoginCms } from '../../src/modules/arca/cms.ts';
import {
  ArcaFaultError,
  ArcaServiceError,
  ArcaTicketUnavailableError,
  ArcaTransportError,
} from '../../src/modules/arca/errors.ts';
import { createFakeArca, type FakeArca } from '../../src/modules/arca/fake/fake-arca.ts';
import { getAccessTicket } from '../../src/modules/arca/tickets.ts';
import { DEMO_SERVICE_CUIT, type DemoArca, startDemoArca } from '../../src/modules/invoicing/demo-arca.ts';
import { createLogger } from '../../src/logger.ts';
import { arcaDate } from '../../src/modules/arca/time.ts';
import { buildLoginTicketRequest, login } from '../../src/modules/arca/wsaa.ts';
import { type CaeRequest, createWsfeClient } from '../../src/modules/arca/wsfe.ts';
import { openTestDatabase, type TestDatabase } from '../setup/db.ts';

const CUIT = '20111111112';
const dir = mkdtempSync(join(tmpdir(), 'mostrador-arca-client-'));

function certificate(days = 30, notBefore?: Date) {
  const { keyPem } = generateKeyPair();
  const certPem = createSelfSignedCertificate({
    keyPem,
    cuit: CUIT,
    organization: 'Mostrador',
    commonName: 'test',
    days,
    ...(notBefore ? { notBefore } : {}),
  });
  return { keyPem, certPem };
}

const sample = (number: number, extra: Partial<CaeRequest> = {}): CaeRequest => ({
  pointOfSale: 1,
  type: 6,
  concept: 1,
  docType: 99,
  docNumber: '0',
  number,
  date: arcaDate(new Date()),
  total: '121.00',
  untaxed: '0.00',
  net: '100.00',
  exempt: '0.00',
  otherTaxes: '0.00',
  iva: '21.00',
  currency: 'PES',
  currencyRate: '1',
  receiverIvaConditionId: 5,
  ivaLines: [{ id: 5, base: '100.00', amount: '21.00' }],
  ...extra,
});

describe('CMS signature of the login ticket request', () => {
  it('is a SignedData that Debian’s openssl cms -verify accepts, with the request attached', () => {
    const { keyPem, certPem } = certificate();
    const tra = buildLoginTicketRequest({ service: 'wsfe', now: new Date('2026-11-23T12:00:00Z'), uniqueId: 42 });
    expect(tra).toContain('<generationTime>2026-11-23T08:50:00-03:00</generationTime>');
    expect(tra).toContain('<expirationTime>2026-11-23T09:10:00-03:00</expirationTime>');
    const der = Buffer.from(signLoginTicketRequest(tra, certPem, keyPem), 'base64');
    writeFileSync(join(dir, 'tra.der'), der);
    writeFileSync(join(dir, 'tra.crt'), certPem);
    const out = execFileSync(
      'openssl',
      ['cms', '-verify', '-inform', 'DER', '-in', join(dir, 'tra.der'), '-CAfile', join(dir, 'tra.crt'), '-purpose', 'any'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    ).toString();
    expect(out).toBe(tra);
    // Tampered: openssl refuses it, and so does our own verifier (the fake WSAA's).
    der[der.length - 10]! ^= 0xff;
    writeFileSync(join(dir, 'bad.der'), der);
    expect(() =>
      execFileSync(
        'openssl',
        ['cms', '-verify', '-inform', 'DER', '-in', join(dir, 'bad.der'), '-CAfile', join(dir, 'tra.crt'), '-purpose', 'any'],
        { stdio: 'pipe' },
      ),
    ).toThrow();
    expect(() => verifyLoginCms(der.toString('base64'))).toThrow();
  });

  it('keys, CSRs and certificates carry ARCA’s subject (serialNumber=CUIT …)', () => {
    const { keyPem, certPem } = certificate();
    const csr = createCsr({ keyPem, cuit: '30712345671', organization: 'Almacén Don Tito', commonName: 'mostrador-30712345671' });
    writeFileSync(join(dir, 'req.csr'), csr);
    const subject = execFileSync(
      'openssl',
      ['req', '-in', join(dir, 'req.csr'), '-noout', '-verify', '-subject', '-nameopt', 'RFC2253'],
      { stdio: 'pipe' },
    ).toString();
    expect(subject).toContain('serialNumber=CUIT 30712345671');
    expect(subject).toContain('C=AR');
    const info = describeCertificate(certPem);
    expect(info.cuit).toBe(CUIT);
    expect(info.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(keyMatchesCertificate(keyPem, certPem)).toBe(true);
    expect(keyMatchesCertificate(generateKeyPair().keyPem, certPem)).toBe(false);
    expect(() => describeCertificate('hola')).toThrow();
  });

  it('certificate serials are positive, minimal DER integers whatever the random bytes (OpenSSL refused 1 in 512)', () => {
    const rest = [0x16, 0xdd, 0xcc, 0xc0, 0xb1, 0xb4, 0x1b];
    expect(certificateSerial(Buffer.from([0x00, ...rest]))).toBe('0116ddccc0b1b41b');
    expect(certificateSerial(Buffer.from([0x00, 0x80, 0, 0, 0, 0, 0, 0]))).toBe('0180000000000000');
    expect(certificateSerial(Buffer.from([0xff, ...rest]))).toBe('7f16ddccc0b1b41b');
    expect(certificateSerial(Buffer.from([0x80, ...rest]))).toBe('0116ddccc0b1b41b');
    expect(certificateSerial(Buffer.from([0x42, ...rest]))).toBe('4316ddccc0b1b41b');
  });
});

describe('WSAA and WSFEv1 against the fake ARCA', () => {
  let fake: FakeArca;
  let urls: { wsaaUrl: string; wsfeUrl: string; baseUrl: string };
  let database: TestDatabase;
  /** The fake's clock runs this far ahead (the renewal test travels 12 hours). */
  let ahead = 0;
  beforeAll(async () => {
    fake = createFakeArca({ now: () => new Date(Date.now() + ahead) });
    urls = await fake.listen();
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await fake.close();
    await database.dispose();
  });

  it('logs in; a second login inside the window is coe.alreadyAuthenticated; bad times and expired certificates are faults', async () => {
    const { keyPem, certPem } = certificate();
    const ticket = await login({ url: urls.wsaaUrl, certPem, keyPem, service: 'wsfe', timeoutMs: 2000 });
    expect(ticket.token.length).toBeGreaterThan(20);
    expect(ticket.expirationTime.getTime() - ticket.generationTime.getTime()).toBe(12 * 3_600_000);
    const again = login({ url: urls.wsaaUrl, certPem, keyPem, service: 'wsfe', timeoutMs: 2000 });
    await expect(again).rejects.toBeInstanceOf(ArcaFaultError);
    await expect(again).rejects.toMatchObject({ faultCode: 'coe.alreadyAuthenticated' });
    const other = certificate();
    await expect(
      login({ url: urls.wsaaUrl, ...other, service: 'wsfe', timeoutMs: 2000, now: new Date(Date.now() + 3_600_000) }),
    ).rejects.toMatchObject({ faultCode: 'xml.generationTime.invalid' });
    const expired = certificate(1, new Date(Date.now() - 5 * 86_400_000));
    await expect(login({ url: urls.wsaaUrl, ...expired, service: 'wsfe', timeoutMs: 2000 })).rejects.toMatchObject({
      faultCode: 'cms.cert.expired',
    });
  });

  it('FEDummy, points of sale, numbering, CAE, FECompConsultar; a bad token is 600', async () => {
    const { keyPem, certPem } = certificate();
    const ticket = await login({ url: urls.wsaaUrl, certPem, keyPem, service: 'wsfe', timeoutMs: 2000 });
    const auth = { token: ticket.token, sign: ticket.sign, cuit: '30712345671' };
    const wsfe = createWsfeClient({ url: urls.wsfeUrl, timeoutMs: 2000 });
    expect(await wsfe.dummy()).toEqual({ appServer: 'OK', dbServer: 'OK', authServer: 'OK' });
    expect(await wsfe.pointsOfSale(auth)).toEqual([
      { number: 1, emissionType: 'CAE - Ri Iva', blocked: false, removedOn: null },
      { number: 2, emissionType: 'CAE - Ri Iva', blocked: false, removedOn: null },
    ]);
    expect(await wsfe.lastAuthorized(auth, { pointOfSale: 1, type: 6 })).toBe(0);
    const granted = await wsfe.requestCae(auth, sample(1));
    expect(granted).toMatchObject({ result: 'A', number: 1, errors: [] });
    expect(granted.cae).toMatch(/^\d{14}$/);
    const wrong = await wsfe.requestCae(auth, sample(3));
    expect(wrong).toMatchObject({ result: 'R', cae: null, errors: [{ code: 10016 }] });
    const c = await wsfe.requestCae(auth, sample(1, { type: 11 }));
    expect(c.observations[0]?.code).toBe(10071);
    expect(await wsfe.consult(auth, { pointOfSale: 1, type: 6, number: 1 })).toMatchObject({
      number: 1,
      total: '121.00',
      cae: granted.cae,
      docType: 99,
    });
    expect(await wsfe.consult(auth, { pointOfSale: 1, type: 6, number: 2 })).toBeNull();
    expect((await wsfe.quotation(auth, 'DOL')).rate).toBe('1160.5');
    await expect(wsfe.lastAuthorized({ ...auth, token: 'nope' }, { pointOfSale: 1, type: 6 })).rejects.toBeInstanceOf(
      ArcaServiceError,
    );
    await expect(wsfe.lastAuthorized({ ...auth, token: 'nope' }, { pointOfSale: 1, type: 6 })).rejects.toMatchObject({
      code: 600,
    });
  });

  it('timeouts, dropped connections and HTTP errors are transport errors of their kind; a SOAP 1.2 request gets a SOAP 1.2 answer', async () => {
    const wsfe = createWsfeClient({ url: urls.wsfeUrl, timeoutMs: 300 });
    fake.control.delayNext(800, 'FEDummy');
    await expect(wsfe.dummy()).rejects.toMatchObject({ kind: 'timeout' });
    fake.control.failNext(503, 'FEDummy');
    await expect(wsfe.dummy()).rejects.toMatchObject({ kind: 'http', status: 503 });
    const closed = createWsfeClient({ url: 'http://127.0.0.1:9/wsfev1/service.asmx', timeoutMs: 1000 });
    await expect(closed.dummy()).rejects.toBeInstanceOf(ArcaTransportError);
    await expect(closed.dummy()).rejects.toMatchObject({ kind: 'network' });
    const res = await fetch(urls.wsfeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/soap+xml; charset=utf-8; action="http://ar.gov.afip.dif.FEV1/FEDummy"' },
      body: '<soap12:Envelope xmlns:soap12="http://www.w3.org/2003/05/soap-envelope" xmlns:ar="http://ar.gov.afip.dif.FEV1/"><soap12:Body><ar:FEDummy/></soap12:Body></soap12:Envelope>',
    });
    expect(res.headers.get('content-type')).toContain('application/soap+xml');
    expect(await res.text()).toContain('http://www.w3.org/2003/05/soap-envelope');
  });

  it('the access ticket is stored and shared: ten callers at once, one login; renewed only inside the margin', async () => {
    const { keyPem, certPem } = certificate();
    const before = fake.stats.logins;
    const request = { certPem, keyPem, service: 'wsfe', wsaaUrl: urls.wsaaUrl, timeoutMs: 2000 };
    const tickets = await Promise.all(Array.from({ length: 10 }, () => getAccessTicket(database.db, request)));
    expect(new Set(tickets.map((t) => t.token)).size).toBe(1);
    expect(fake.stats.logins - before).toBe(1);
    // 11 h 45 min later the stored ticket still serves; at 11 h 55 min (inside the 10-minute margin) one new login.
    ahead = 11 * 3_600_000 + 45 * 60_000;
    const still = await getAccessTicket(database.db, { ...request, now: () => new Date(Date.now() + ahead) });
    expect(still.token).toBe(tickets[0]!.token);
    ahead = 11 * 3_600_000 + 55 * 60_000;
    try {
      const renewed = await getAccessTicket(database.db, { ...request, now: () => new Date(Date.now() + ahead) });
      expect(renewed.token).not.toBe(tickets[0]!.token);
      expect(fake.stats.logins - before).toBe(2);
    } finally {
      ahead = 0;
    }
  });

  it('coe.alreadyAuthenticated without a stored ticket says to wait, in Spanish', async () => {
    const { keyPem, certPem } = certificate();
    await login({ url: urls.wsaaUrl, certPem, keyPem, service: 'wsfe', timeoutMs: 2000 });
    const attempt = getAccessTicket(database.db, { certPem, keyPem, service: 'wsfe', wsaaUrl: urls.wsaaUrl, timeoutMs: 2000 });
    await expect(attempt).rejects.toBeInstanceOf(ArcaTicketUnavailableError);
    await expect(attempt).rejects.toThrow(/unos minutos/);
  });

  it('two processes on one PostgreSQL asking at once share one ticket: one login', async (ctx) => {
    if (!database.url) ctx.skip(); // the embedded database belongs to one process
    const { keyPem, certPem } = certificate();
    writeFileSync(join(dir, 'shared.key'), keyPem);
    writeFileSync(join(dir, 'shared.crt'), certPem);
    const before = fake.stats.logins;
    const run = () =>
      new Promise<string[]>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'test/arca/ticket-worker.ts'], {
          env: {
            ...process.env,
            TICKET_DB_URL: database.url!,
            TICKET_CERT: join(dir, 'shared.crt'),
            TICKET_KEY: join(dir, 'shared.key'),
            TICKET_WSAA_URL: urls.wsaaUrl,
            TICKET_CALLS: '5',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (err += d));
        child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as string[]) : reject(new Error(err))));
      });
    const [a, b] = await Promise.all([run(), run()]);
    expect(new Set([...a, ...b]).size).toBe(1);
    expect(fake.stats.logins - before).toBe(1);
  }, 60_000);
});

describe('the demo’s built-in fake ARCA', () => {
  it('lets a new database log in after a restart, and the ticket given before it still works', async () => {
    const dataDir = join(dir, 'demo');
    const first = await startDemoArca({ dataDir, logger: createLogger('silent') });
    const asDemo = (demo: DemoArca) =>
      login({ url: demo.wsaaUrl, certPem: demo.certPem, keyPem: demo.keyPem, service: 'wsfe', timeoutMs: 2000 });
    const ticket = await asDemo(first);
    await expect(asDemo(first)).rejects.toMatchObject({ faultCode: 'coe.alreadyAuthenticated' });
    await first.close();
    // Started again on the same DATA_DIR (its database deleted meanwhile): a login gets a ticket.
    const second = await startDemoArca({ dataDir, logger: createLogger('silent') });
    try {
      expect(second.certPem).toBe(first.certPem);
      const fresh = await asDemo(second);
      expect(fresh.token).not.toBe(ticket.token);
      const wsfe = createWsfeClient({ url: second.wsfeUrl, timeoutMs: 2000 });
      for (const { token, sign } of [ticket, fresh]) {
        expect(await wsfe.lastAuthorized({ token, sign, cuit: DEMO_SERVICE_CUIT }, { pointOfSale: 1, type: 6 })).toBe(0);
      }
    } finally {
      await second.close();
    }
  });
});
