import type { FastifyReply } from 'fastify';
import { escapeHtml } from '../lib/html.ts';

/** HTML text already escaped (or trusted markup); anything else interpolated into `html` is escaped. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

export { escapeHtml };

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** Tagged template for markup: `html\`<p>${userText}</p>\`` escapes userText. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

/** JSON for a `<script type="application/json">` block: `<` escaped so no tag can close it. */
export function jsonForScript(value: unknown): SafeHtml {
  return new SafeHtml(
    JSON.stringify(value)
      .replace(/</g, '\\u003c')
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029'),
  );
}

/**
 * The one Content-Security-Policy of our HTML: scripts, styles, media and calls only from this
 * origin, and no inline script or style at all (the page data travels as an inert JSON block).
 * `img` also allows https and http for product photos hosted elsewhere (the kiosk).
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: https: http:",
  "media-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Sends a whole HTML document with the CSP and the hardening headers every page shares. */
export function sendHtml(
  reply: FastifyReply,
  body: string,
  options: { status?: number; cache?: string; referrer?: string } = {},
) {
  return reply
    .code(options.status ?? 200)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': options.cache ?? 'no-store',
      'content-security-policy': PAGE_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': options.referrer ?? 'same-origin',
      'x-frame-options': 'DENY',
    })
    .send(body);
}
