import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const BASE = { SECRET_KEY: 'x'.repeat(40), DATA_DIR: '.tmp/config-test', LOG_LEVEL: 'silent' };

describe('auth configuration', () => {
  it('defaults to 12-hour sessions, modest login limits and no external provider', () => {
    const { auth } = loadConfig(BASE);
    expect(auth).toEqual({
      sessionTtlHours: 12,
      loginLimitPerAccount: 5,
      loginLimitPerClient: 30,
      loginWindowSeconds: 900,
      jwks: null,
    });
  });

  it('reads an external provider with issuer and audience', () => {
    const { auth } = loadConfig({
      ...BASE,
      AUTH_JWKS_URL: 'https://idp.example/.well-known/jwks.json',
      AUTH_JWT_ISSUER: 'https://idp.example/',
      AUTH_JWT_AUDIENCE: 'authenticated',
    });
    expect(auth.jwks).toEqual({
      url: 'https://idp.example/.well-known/jwks.json',
      issuer: 'https://idp.example/',
      audience: 'authenticated',
    });
  });

  it.each([
    [{ AUTH_JWKS_URL: 'https://idp.example/jwks' }, 'AUTH_JWT_ISSUER is required'],
    [{ AUTH_JWKS_URL: 'http://idp.example/jwks', AUTH_JWT_ISSUER: 'x' }, 'AUTH_JWKS_URL must be an https URL'],
    [{ AUTH_JWKS_URL: 'not a url', AUTH_JWT_ISSUER: 'x' }, 'AUTH_JWKS_URL must be an https URL'],
    [{ AUTH_JWT_ISSUER: 'x' }, 'only apply together with AUTH_JWKS_URL'],
    [{ AUTH_SESSION_TTL_HOURS: '0' }, 'AUTH_SESSION_TTL_HOURS must be an integer'],
    [{ AUTH_LOGIN_LIMIT_PER_ACCOUNT: 'many' }, 'AUTH_LOGIN_LIMIT_PER_ACCOUNT must be an integer'],
  ])('refuses %o', (env, message) => {
    expect(() => loadConfig({ ...BASE, ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ ...BASE, ...env })).toThrow(message);
  });

  it('allows plain http for a JWKS on the loopback interface (local providers and tests)', () => {
    expect(loadConfig({ ...BASE, AUTH_JWKS_URL: 'http://127.0.0.1:9999/jwks', AUTH_JWT_ISSUER: 'x' }).auth.jwks?.url).toBe(
      'http://127.0.0.1:9999/jwks',
    );
  });
});
