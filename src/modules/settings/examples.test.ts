import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { hmacSha256Hex } from '../../lib/secrets.ts';
import { buildIntegrationExamples, buildScannerExamples, maskSecret, shellQuote } from './examples.ts';

const KEY = 'mos_int_abcDEF123_-xyz';
const NOW = new Date('2026-03-02T12:00:00.000Z');

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('integration examples', () => {
  const ex = buildIntegrationExamples({ baseUrl: 'https://shop.example', integrationKey: KEY, now: NOW, idempotencyKey: 'k-1' });

  it('signs the exact compact body with the key', () => {
    expect(ex.body).toBe(JSON.stringify(JSON.parse(ex.body)));
    expect(JSON.parse(ex.body).event).toBe('product.upserted');
    expect(ex.signature).toBe(hmacSha256Hex(KEY, ex.body));
    expect(ex.signature).toMatch(/^[0-9a-f]{64}$/);
  });

  it('puts key, signature, body and headers in the curl command', () => {
    expect(ex.curl_signed).toContain(`'https://shop.example/api/integration/in'`);
    expect(ex.curl_signed).toContain(`-H 'Authorization: Bearer ${KEY}'`);
    expect(ex.curl_signed).toContain(`-H 'x-signature: ${ex.signature}'`);
    expect(ex.curl_signed).toContain(`-H 'x-idempotency-key: k-1'`);
    expect(ex.curl_signed).toContain(`--data-raw ${shellQuote(ex.body)}`);
    expect(ex.curl_poll).toContain(`'https://shop.example/api/integration/in?limit=50'`);
  });

  it.runIf(hasOpenssl())('computes the same signature when the signing script runs in a shell', () => {
    const signingPart = ex.shell_signing.split('\n').slice(0, 3).join('\n');
    const out = execFileSync('sh', ['-c', `${signingPart}\nprintf '%s' "$SIG"`], { encoding: 'utf8' });
    expect(out).toBe(ex.signature);
  });

  it('quotes single quotes for the shell', () => {
    expect(execFileSync('sh', ['-c', `printf '%s' ${shellQuote(`it's "x" $HOME`)}`], { encoding: 'utf8' })).toBe(
      `it's "x" $HOME`,
    );
  });

  it('builds scanner links with the token encoded', () => {
    const s = buildScannerExamples('https://shop.example', 'mos_scn_a+b');
    expect(s.kiosk_url).toBe('https://shop.example/scanner?token=mos_scn_a%2Bb');
    expect(s.lookup_url).toContain('/api/public/scanner?token=mos_scn_a%2Bb&query=');
  });

  it('masks all but the prefix and the last four characters', () => {
    expect(maskSecret(KEY, 'mos_int_')).toBe('mos_int_••••••••-xyz');
  });
});
