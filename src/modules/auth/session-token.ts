import { hkdfSync } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, errors, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import type { AuthConfig } from '../../config.ts';

// Our own session tokens: HS256 with a key derived from SECRET_KEY (never the key itself).
const ISSUER = 'mostrador';
const AUDIENCE = 'mostrador:session';
const LOCAL_ALGORITHM = 'HS256';
/** Algorithms accepted from an external identity provider: public-key ones only, never HMAC or none. */
const EXTERNAL_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const MAX_TOKEN_LENGTH = 8192;

export function deriveSessionKey(secretKey: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secretKey, 'mostrador', 'session-jwt-hs256-v1', 32));
}

export interface LocalTokenClaims {
  userId: number;
  sessionId: string;
  issuedAt: Date;
  expiresAt: Date;
}

export async function signSessionToken(key: Uint8Array, claims: LocalTokenClaims): Promise<string> {
  return new SignJWT({ sid: claims.sessionId })
    .setProtectedHeader({ alg: LOCAL_ALGORITHM, typ: 'JWT' })
    .setSubject(String(claims.userId))
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(Math.floor(claims.issuedAt.getTime() / 1000))
    .setExpirationTime(Math.floor(claims.expiresAt.getTime() / 1000))
    .sign(key);
}

/** Which verifier a token is for, from its header alone (nothing in it is trusted yet). */
export function classifyToken(token: string): 'local' | 'external' | null {
  if (token.length > MAX_TOKEN_LENGTH || !JWT_SHAPE.test(token)) return null;
  try {
    const { alg } = decodeProtectedHeader(token);
    if (alg === LOCAL_ALGORITHM) return 'local';
    return alg !== undefined && EXTERNAL_ALGORITHMS.includes(alg) ? 'external' : null;
  } catch {
    return null;
  }
}

/** Signature, issuer, audience and expiry checked against `now`; null for any failure. */
export async function verifySessionToken(key: Uint8Array, token: string, now: Date): Promise<LocalTokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: [LOCAL_ALGORITHM],
      issuer: ISSUER,
      audience: AUDIENCE,
      currentDate: now,
      requiredClaims: ['sub', 'sid', 'iat', 'exp'],
    });
    const userId = Number(payload.sub);
    if (!Number.isSafeInteger(userId) || typeof payload['sid'] !== 'string') return null;
    return {
      userId,
      sessionId: payload['sid'],
      issuedAt: new Date(payload.iat! * 1000),
      expiresAt: new Date(payload.exp! * 1000),
    };
  } catch {
    return null;
  }
}

export interface ExternalIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  expiresAt: Date;
}

export type ExternalVerifier = (token: string, now: Date) => Promise<ExternalIdentity | null>;

/**
 * Verifies tokens of the configured identity provider with its published keys (fetched with a
 * timeout and cached by jose). An email counts only when the provider does not say it is unverified.
 * `onKeysUnavailable` hears about failures to fetch the keys (not about bad tokens).
 */
export function createExternalVerifier(
  jwks: NonNullable<AuthConfig['jwks']>,
  onKeysUnavailable: (err: unknown) => void = () => {},
): ExternalVerifier {
  const keys = createRemoteJWKSet(new URL(jwks.url), { timeoutDuration: 5000, cooldownDuration: 30_000 });
  return async (token, now) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        algorithms: EXTERNAL_ALGORITHMS,
        issuer: jwks.issuer,
        ...(jwks.audience !== null ? { audience: jwks.audience } : {}),
        currentDate: now,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (err) {
      if (!(err instanceof errors.JOSEError) || err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) {
        onKeysUnavailable(err);
      }
      return null;
    }
    const email = typeof payload['email'] === 'string' && payload['email_verified'] !== false ? payload['email'] : null;
    return { issuer: payload.iss!, subject: payload.sub!, email, expiresAt: new Date(payload.exp! * 1000) };
  };
}
