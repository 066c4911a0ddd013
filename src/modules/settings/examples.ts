import { randomBytes } from 'node:crypto';
import { hmacSha256Hex } from '../../lib/secrets.ts';

/** Quotes a value for a POSIX shell (single quotes; embedded ones closed and escaped). */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export interface IntegrationExamples {
  /** The exact body the signature covers (compact JSON, no extra spaces). */
  body: string;
  /** Lowercase hex HMAC-SHA256 of `body` with the integration key. */
  signature: string;
  curl_signed: string;
  curl_poll: string;
  /** Signs any body on the spot with openssl, for the integrator's own scripts. */
  shell_signing: string;
}

export interface ExampleInput {
  baseUrl: string;
  integrationKey: string;
  now: Date;
  /** Fixed in tests; random otherwise, so sending the example twice shows the idempotent answer. */
  idempotencyKey?: string;
}

/** Ready-to-run examples for the company's own key: one signed event, a poll, a signing script. */
export function buildIntegrationExamples({ baseUrl, integrationKey, now, idempotencyKey }: ExampleInput): IntegrationExamples {
  const url = `${baseUrl}/api/integration/in`;
  const body = JSON.stringify({
    event: 'product.upserted',
    data: {
      product: {
        id: 1001,
        sku: 'YERBA-500',
        name: 'Yerba mate 500 g',
        base_price: 2350.5,
        enable: true,
        updated_at: now.toISOString(),
      },
    },
  });
  const signature = hmacSha256Hex(integrationKey, body);
  const key = idempotencyKey ?? `ejemplo-${randomBytes(6).toString('hex')}`;
  const auth = shellQuote(`Authorization: Bearer ${integrationKey}`);
  const sentAt = `-H "x-sent-at: $(date -u +%Y-%m-%dT%H:%M:%SZ)"`;
  const curlSigned = [
    `curl -sS -X POST ${shellQuote(url)}`,
    `  -H ${auth}`,
    `  -H 'Content-Type: application/json'`,
    `  -H ${shellQuote(`x-idempotency-key: ${key}`)}`,
    `  ${sentAt}`,
    `  -H ${shellQuote(`x-signature: ${signature}`)}`,
    `  --data-raw ${shellQuote(body)}`,
  ].join(' \\\n');
  const curlPoll = `curl -sS ${shellQuote(`${url}?limit=50`)} \\\n  -H ${auth}`;
  const shellSigning = [
    `KEY=${shellQuote(integrationKey)}`,
    `BODY=${shellQuote(body)}`,
    `SIG=$(printf '%s' "$BODY" | openssl dgst -sha256 -hmac "$KEY" -r | cut -d' ' -f1)`,
    `curl -sS -X POST ${shellQuote(url)} \\`,
    `  -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \\`,
    `  -H "x-idempotency-key: $(date +%s)-$RANDOM" ${sentAt} \\`,
    `  -H "x-signature: $SIG" --data-raw "$BODY"`,
  ].join('\n');
  return { body, signature, curl_signed: curlSigned, curl_poll: curlPoll, shell_signing: shellSigning };
}

export interface ScannerExamples {
  lookup_url: string;
  kiosk_url: string;
  curl_lookup: string;
}

export function buildScannerExamples(baseUrl: string, scannerToken: string): ScannerExamples {
  const token = encodeURIComponent(scannerToken);
  const lookup = `${baseUrl}/api/public/scanner?token=${token}&query=7790001234567`;
  return {
    lookup_url: lookup,
    kiosk_url: `${baseUrl}/scanner?token=${token}`,
    curl_lookup: `curl -sS ${shellQuote(lookup)}`,
  };
}

/** Enough of a secret to recognise it, not to use it: prefix and last four characters. */
export function maskSecret(secret: string, prefix: string): string {
  return `${prefix}${'•'.repeat(8)}${secret.slice(-4)}`;
}
