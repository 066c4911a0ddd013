import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export const IDP_ISSUER = 'https://idp.test/auth/v1';
export const IDP_AUDIENCE = 'authenticated';

/**
 * A local identity provider: publishes an RS256 public key as a JWKS over HTTP (what a hosted
 * auth service serves at /.well-known/jwks.json) and signs tokens with the private key.
 */
export async function startJwksServer() {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'idp-key-1', alg: 'RS256', use: 'sig' };
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests++;
    if (req.url !== '/.well-known/jwks.json') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  type Claims = { sub: string; email?: string; email_verified?: boolean; iss?: string; aud?: string; expSeconds?: number };
  async function sign(claims: Claims, key: Parameters<SignJWT['sign']>[0] = privateKey, kid = 'idp-key-1'): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const { sub, iss, aud, expSeconds, ...rest } = claims;
    return new SignJWT(rest)
      .setProtectedHeader({ alg: 'RS256', kid })
      .setSubject(sub)
      .setIssuer(iss ?? IDP_ISSUER)
      .setAudience(aud ?? IDP_AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + (expSeconds ?? 3600))
      .sign(key);
  }

  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    sign,
    publicJwk: jwk,
    get requests() {
      return requests;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
