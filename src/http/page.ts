import { randomBytes } from 'node:crypto';
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

export interface PageOptions {
  title: string;
  body: SafeHtml;
  /** Inline script (our own code, not user input); runs with the page's CSP nonce. */
  script?: string;
  /** Shown in the header with a logout button when someone is logged in. */
  userEmail?: string | null;
}

const STYLE = `
:root{--fg:#1d2433;--muted:#5b6475;--line:#d9dee7;--bg:#f6f7f9;--accent:#1f5fbf;--danger:#b42318;--ok:#157347}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header{display:flex;gap:1rem;align-items:center;justify-content:space-between;padding:.75rem 1.5rem;background:#fff;border-bottom:1px solid var(--line)}
header strong{font-size:1.1rem}main{max-width:72rem;margin:1.5rem auto;padding:0 1.5rem}
section{background:#fff;border:1px solid var(--line);border-radius:8px;padding:1.25rem;margin-bottom:1.25rem}
h1{font-size:1.5rem;margin:0 0 1rem}h2{font-size:1.15rem;margin:0 0 .75rem}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:.5rem;border-bottom:1px solid var(--line)}th{color:var(--muted);font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums}
label{display:block;margin:.5rem 0 .25rem;font-weight:600}input,select{font:inherit;padding:.5rem;border:1px solid var(--line);border-radius:6px;width:100%;max-width:28rem}
button{font:inherit;padding:.5rem 1rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
button.secondary{background:#fff;color:var(--accent)}button.danger{border-color:var(--danger);background:#fff;color:var(--danger)}
button:disabled{opacity:.6;cursor:wait}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9rem}
pre{background:#0f172a;color:#e2e8f0;padding:1rem;border-radius:6px;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.muted{color:var(--muted)}.error{color:var(--danger)}.ok{color:var(--ok)}.row{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center}
.secret{font-family:ui-monospace,monospace;background:#eef2f7;padding:.25rem .5rem;border-radius:4px;word-break:break-all}
.notice{border-left:4px solid var(--accent);padding:.5rem .75rem;background:#eef4fd}
`;

const COMMON_SCRIPT = `
document.querySelectorAll('[data-logout]').forEach(function (b) {
  b.addEventListener('click', async function () {
    b.disabled = true;
    await fetch('/api/auth/logout', { method: 'POST', credentials: 'same-origin' });
    location.assign('/login');
  });
});
document.addEventListener('click', async function (e) {
  var t = e.target.closest && e.target.closest('[data-copy]');
  if (!t) return;
  var src = document.getElementById(t.getAttribute('data-copy'));
  if (!src) return;
  try { await navigator.clipboard.writeText(src.textContent); t.textContent = 'Copiado'; }
  catch (err) { t.textContent = 'Seleccioná y copiá a mano'; }
  setTimeout(function () { t.textContent = 'Copiar'; }, 2000);
});
`;

export function renderPage(options: PageOptions, nonce: string): string {
  const header = options.userEmail
    ? html`<span class="muted">${options.userEmail}</span> <button class="secondary" type="button" data-logout>Cerrar sesión</button>`
    : html``;
  return html`<!doctype html>
<html lang="es-AR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${options.title} · Mostrador</title><style nonce="${nonce}">${new SafeHtml(STYLE)}</style></head>
<body><header><strong>Mostrador</strong><div class="row">${header}</div></header>
<main>${options.body}</main>
<script nonce="${nonce}">${new SafeHtml(COMMON_SCRIPT)}${new SafeHtml(options.script ?? '')}</script>
</body></html>`.value;
}

/** Sends a page with a strict per-response CSP (only our nonce'd inline code runs) and no caching. */
export function sendPage(reply: FastifyReply, options: PageOptions, status = 200) {
  const nonce = randomBytes(16).toString('base64');
  return reply
    .code(status)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
      'x-frame-options': 'DENY',
    })
    .send(renderPage(options, nonce));
}

const DATE_TIME = new Intl.DateTimeFormat('es-AR', {
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZone: 'America/Argentina/Buenos_Aires',
});

/** A moment as an Argentine reader expects it ("21/11/2026, 10:15"), in Buenos Aires time. */
export function formatDateTime(value: Date | string): string {
  return DATE_TIME.format(new Date(value));
}
