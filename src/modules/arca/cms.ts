import { createHash, createPrivateKey, createPublicKey, verify as verifySignature, X509Certificate } from 'node:crypto';
import forge from 'node-forge';

/**
 * The CMS (PKCS#7 SignedData) WSAA's loginCms takes: the login ticket request attached, signed
 * with SHA-256/RSA, the signer's certificate included, with signed attributes (content type,
 * message digest, signing time). Base64 of the DER.
 */
export function signLoginTicketRequest(traXml: string, certPem: string, keyPem: string, now = new Date()): string {
  const cert = forge.pki.certificateFromPem(certPem);
  const key = forge.pki.privateKeyFromPem(toPkcs1(keyPem));
  const p7 = forge.pkcs7.createSignedData();
  p7.content = forge.util.createBuffer(traXml, 'utf8');
  p7.addCertificate(cert);
  p7.addSigner({
    key,
    certificate: cert,
    digestAlgorithm: forge.pki.oids.sha256!,
    authenticatedAttributes: [
      { type: forge.pki.oids.contentType!, value: forge.pki.oids.data! },
      { type: forge.pki.oids.messageDigest! },
      // forge encodes a Date as UTCTime; its typings only admit strings.
      { type: forge.pki.oids.signingTime!, value: now as unknown as string },
    ],
  });
  p7.sign();
  return forge.util.encode64(forge.asn1.toDer(p7.toAsn1()).getBytes());
}

function toPkcs1(keyPem: string): string {
  return createPrivateKey(keyPem).export({ type: 'pkcs1', format: 'pem' }).toString();
}

export interface VerifiedCms {
  content: string;
  certPem: string;
}

/**
 * Checks a CMS like the one above (the fake WSAA does): the message digest attribute matches the
 * content and the signature over the signed attributes verifies with the included certificate.
 * Throws when it does not.
 */
export function verifyLoginCms(base64: string): VerifiedCms {
  const der = forge.util.decode64(base64.replace(/\s+/g, ''));
  const msg = forge.pkcs7.messageFromAsn1(forge.asn1.fromDer(der)) as unknown as {
    certificates: forge.pki.Certificate[];
    content?: forge.util.ByteStringBuffer;
    rawCapture: { authenticatedAttributes?: forge.asn1.Asn1[]; signature: string; content?: forge.asn1.Asn1 };
  };
  const cert = msg.certificates[0];
  if (!cert) throw new Error('no signer certificate in the CMS');
  const content = contentBytes(msg);
  const attributes = msg.rawCapture.authenticatedAttributes;
  if (!attributes) throw new Error('no signed attributes');
  let digest: string | null = null;
  for (const attr of attributes) {
    const [oid, values] = attr.value as forge.asn1.Asn1[];
    if (forge.asn1.derToOid(oid!.value as string) === forge.pki.oids.messageDigest) {
      digest = ((values!.value as forge.asn1.Asn1[])[0]!.value as string) ?? null;
    }
  }
  const expected = createHash('sha256').update(Buffer.from(content, 'binary')).digest('binary');
  if (digest !== expected) throw new Error('message digest does not match the content');
  const set = forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.SET, true, attributes);
  const signed = Buffer.from(forge.asn1.toDer(set).getBytes(), 'binary');
  const certPem = forge.pki.certificateToPem(cert);
  const publicKey = createPublicKey(new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'pem' }));
  const ok = verifySignature('sha256', signed, publicKey, Buffer.from(msg.rawCapture.signature, 'binary'));
  if (!ok) throw new Error('signature does not verify');
  return { content: Buffer.from(content, 'binary').toString('utf8'), certPem };
}

function contentBytes(msg: { content?: forge.util.ByteStringBuffer; rawCapture: { content?: forge.asn1.Asn1 } }): string {
  const raw = msg.rawCapture.content;
  if (!raw) {
    if (msg.content && msg.content.length() > 0) return msg.content.bytes();
    throw new Error('no attached content');
  }
  // [0] EXPLICIT OCTET STRING (possibly constructed from several).
  const collect = (node: forge.asn1.Asn1): string =>
    typeof node.value === 'string' ? node.value : (node.value as forge.asn1.Asn1[]).map(collect).join('');
  return collect(raw);
}
