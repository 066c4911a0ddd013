import { html } from '../../http/page.ts';
import { formatDate } from '../../lib/format.ts';
import { formatPesos } from '../../lib/money.ts';
import type { StatementWire } from './accounts.schemas.ts';

// The printable statement of account (A4, like the invoice printouts; readable on a phone too):
// for a signed-in member (/clientes/:id/estado-de-cuenta) and behind a shared link
// (/estado-de-cuenta/:token, read-only, no login).

const money = (value: number) => formatPesos(value);

function balanceWords(balance: number): string {
  if (balance > 0) return 'Saldo deudor';
  if (balance < 0) return 'Saldo a favor';
  return 'Sin saldo pendiente';
}

export function renderStatementPage(
  s: StatementWire,
  options: { assets: { script: string; styles: string }; shared: boolean; timeZone?: string },
): string {
  const rows = s.movements.map(
    (m) => html`<tr data-kind="${m.kind}">
      <td>${formatDate(m.date)}</td>
      <td class="desc">${m.description}</td>
      <td class="num">${m.amount > 0 ? money(m.amount) : ''}</td>
      <td class="num">${m.amount < 0 ? money(-m.amount) : ''}</td>
      <td class="num">${money(m.balance)}</td>
    </tr>`,
  );
  const a = s.aging;
  return html`<!doctype html>
<html lang="es-AR">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name="robots" content="noindex" />
<title>Estado de cuenta · ${s.customer.name} · ${s.company.name}</title>
<link rel="stylesheet" href="${options.assets.styles}" />
<script src="${options.assets.script}" defer></script>
</head>
<body class="fiscal fiscal-a4 statement-page">
<div class="toolbar no-print">
  <button type="button" id="print">Imprimir</button>
  ${options.shared ? '' : html`<a href="/clientes/${s.customer.id}">Volver al cliente</a>`}
</div>
<article class="receipt statement" aria-label="Estado de cuenta">
  <header class="statement-head">
    <div>
      <h1>${s.company.name}</h1>
      <p class="muted">Estado de cuenta corriente</p>
    </div>
    <div class="num">
      <p>Período: <strong>${formatDate(s.from)}</strong> al <strong>${formatDate(s.to)}</strong></p>
      <p class="muted">Emitido el ${formatDate(s.generated_at)}</p>
    </div>
  </header>
  <section class="buyer">
    <p>Cliente: <strong id="customer-name">${s.customer.name}</strong></p>
    ${s.account.credit_limit !== null ? html`<p>Límite de crédito: ${money(s.account.credit_limit)}</p>` : ''}
  </section>
  <table class="lines">
    <thead><tr><th>Fecha</th><th>Concepto</th><th class="num">Debe</th><th class="num">Haber</th><th class="num">Saldo</th></tr></thead>
    <tbody>
      <tr class="opening"><td>${formatDate(s.from)}</td><td class="desc">Saldo anterior</td><td></td><td></td>
        <td class="num" id="opening-balance">${money(s.opening_balance)}</td></tr>
      ${rows}
    </tbody>
  </table>
  <table class="totals">
    <tbody>
      <tr class="total"><th>${balanceWords(s.closing_balance)}</th><td class="num" id="closing-balance">${money(Math.abs(s.closing_balance))}</td></tr>
    </tbody>
  </table>
  <section class="aging" aria-label="Antigüedad de la deuda">
    <h3>Antigüedad de la deuda (a hoy)</h3>
    <table>
      <tbody>
        <tr><th>0 a 30 días</th><td class="num">${money(a.days_0_30)}</td></tr>
        <tr><th>31 a 60 días</th><td class="num">${money(a.days_31_60)}</td></tr>
        <tr><th>61 a 90 días</th><td class="num">${money(a.days_61_90)}</td></tr>
        <tr><th>Más de 90 días</th><td class="num">${money(a.days_over_90)}</td></tr>
        <tr class="total"><th>Total adeudado</th><td class="num" id="aging-total">${money(a.total)}</td></tr>
      </tbody>
    </table>
  </section>
</article>
</body>
</html>`.value;
}

/** The page a wrong or expired shared link gets: says nothing about any customer or company. */
export function statementNotFoundPage(): string {
  return html`<!doctype html><html lang="es-AR"><head><meta charset="utf-8" /><meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name="robots" content="noindex" /><title>Enlace no válido</title></head>
<body><h1>Este enlace no es válido o ya venció</h1><p>Pedile al comercio que te mande uno nuevo.</p></body></html>`.value;
}
