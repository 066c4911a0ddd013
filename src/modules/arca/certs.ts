import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import forge from 'node-forge';

/**
 * Keys, CSRs and certificates for ARCA: the key is made by Node's crypto; node-forge writes the
 * PKCS#10 request (and the demo's self-signed certificate), which Node cannot.
 */

export function generateKeyPair(): { keyPem: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

interface Subject {
  cuit: string;
  organization: string;
  commonName: string;
}

/** C=AR, O, CN and serialNumber "CUIT nnnnnnnnnnn", the subject ARCA requires. */
function subjectAttributes({ cuit, organization, commonName }: Subject) {
  return [
    { shortName: 'C', value: 'AR' },
    { shortName: 'O', value: organization },
    { shortName: 'CN', value: commonName },
    { name: 'serialNumber', value: `CUIT ${cuit}` },
  ];
}

function forgeKeys(keyPem: string) {
  // forge reads PKCS#1; Node exports either: normalise through Node.
  const privatePem = createPrivateKey(keyPem).export({ type: 'pkcs1', format: 'pem' }).toString();
  const privateKey = forge.pki.privateKeyFromPem(privatePem);
  const publicKey = forge.pki.setRsaPublicKey(privateKey.n, privateKey.e);
  return { privateKey, publicKey };
}

/** A PKCS#10 certificate request (PEM) to upload to ARCA. */
export function createCsr(options: Subject & { keyPem: string }): string {
  const { privateKey, publicKey } = forgeKeys(options.keyPem);
  const csr = forge.pki.createCertificationRequest();
  csr.publicKey = publicKey;
  csr.setSubject(subjectAttributes(options));
  csr.sign(privateKey, forge.md.sha256.create());
  return forge.pki.certificationRequestToPem(csr);
}

/**
 * The serial number (hex) made from random bytes. A DER INTEGER must be positive and minimally
 * encoded, and OpenSSL refuses a certificate whose serial starts with a zero byte before a byte below
 * 0x80 (1 in 512 random serials did): the first byte is kept in 0x01–0x7f.
 */
export function certificateSerial(random: Buffer): string {
  const bytes = Buffer.from(random);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.toString('hex');
}

/** A self-signed certificate (PEM) with ARCA's subject form: the demo's service certificate and tests. */
export function createSelfSignedCertificate(options: Subject & { keyPem: string; days: number; notBefore?: Date }): string {
  const { privateKey, publicKey } = forgeKeys(options.keyPem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = certificateSerial(randomBytes(8));
  const from = options.notBefore ?? new Date(Date.now() - 60_000);
  cert.validity.notBefore = from;
  cert.validity.notAfter = new Date(from.getTime() + options.days * 86_400_000);
  const attrs = subjectAttributes(options);
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true },
  ]);
  cert.sign(privateKey, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

export interface CertificateInfo {
  subject: string;
  /** The CUIT of the subject's serialNumber ("CUIT 20123456786"), if any. */
  cuit: string | null;
  notBefore: Date;
  notAfter: Date;
  /** SHA-256 of the DER, hex: the key of stored access tickets. */
  fingerprint: string;
}

export function describeCertificate(pem: string): CertificateInfo {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    throw new Error('not a PEM X.509 certificate');
  }
  const subject = cert.subject.split('\n').join(', ');
  const cuit = /serialNumber=CUIT\s*(\d{11})/i.exec(cert.subject)?.[1] ?? null;
  return {
    subject,
    cuit,
    notBefore: new Date(cert.validFrom),
    notAfter: new Date(cert.validTo),
    fingerprint: createHash('sha256').update(cert.raw).digest('hex'),
  };
}

export function certificateFingerprint(pem: string): string {
  return describeCertificate(pem).fingerprint;
}

export function keyMatchesCertificate(keyPem: string, certPem: string): boolean {
  const cert = new X509Certificate(certPem);
  const fromKey = createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' });
  const fromCert = cert.publicKey.export({ type: 'spki', format: 'der' });
  return Buffer.compare(fromKey, fromCert) === 0;
}
