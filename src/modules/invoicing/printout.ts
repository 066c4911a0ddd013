import QRCode from 'qrcode';
import { html, SafeHtml } from '../../http/page.ts';
import { formatCuit } from '../../lib/cuit.ts';
import { formatDate, formatDateTime } from '../../lib/format.ts';
import { formatArs, formatPesos, formatQuantity, fromMilli, toCents } from '../../lib/money.ts';
import { ISSUER_CONDITIONS } from './fiscal-rules.ts';
import type { PrintIssuer } from './fiscal.service.ts';
import type { InvoiceDetail } from './invoicing.service.ts';
import { printedLinesWithIva, printedLinesWithoutIva, type SourceLine } from './printed-lines.ts';

/** A sale line as the printout receives it: the one shape printed-lines.ts works on. */
export type PrintLine = SourceLine;

export type PrintFormat = 'a4' | 'ticket';

const money = (value: number | string) => formatPesos(value);
const rateLabel = (rate: string) => (rate === 'exento' ? 'Exento' : `${rate.replace('.', ',')} %`);
const quantity = (milli: number, unit: string) => formatQuantity(fromMilli(milli), unit);

const TITLES: Record<string, string> = { invoice: 'FACTURA', credit_note: 'NOTA DE CRÉDITO' };

/**
 * The fiscal printout: an A4 page ready to save as PDF, or an 80 mm ticket. Legal data of the
 * issuer, the receipt, the buyer, the lines, the IVA (itemised for class A; for class B to a final
 * consumer the RG 5614 transparency block with the IVA contained), the CAE with its expiry and the
 * RG 4892 QR.
 */
export async function renderPrintout(options: {
  invoice: InvoiceDetail;
  lines: PrintLine[];
  issuer: PrintIssuer;
  associated: InvoiceDetail | null;
  format: PrintFormat;
  assets: { script: string; styles: string };
}): Promise<string> {
  const { invoice, lines, issuer, associated, format } = options;
  const letter = invoice.type.slice(-1);
  const classA = letter === 'A';
  const title = TITLES[invoice.kind] ?? 'COMPROBANTE';
  const [pos, number] = invoice.receipt.split(' ').at(-1)!.split('-');
  const qr = invoice.qr_url
    ? new SafeHtml(await QRCode.toString(invoice.qr_url, { type: 'svg', errorCorrectionLevel: 'M', margin: 0 }))
    : null;
  const consumer = letter === 'B' && (invoice.buyer?.iva_condition ?? 5) === 5;
  const issueDate = invoice.issue_date ? formatDate(invoice.issue_date) : formatDateTime(invoice.issued_at);
  const buyer = invoice.buyer;
  // Every printed line is quantity × unit price = amount to the cent, and the lines add up to the
  // printed subtotals (class A: the net per rate sent to ARCA; B and C: the total). See
  // docs/facturacion.md, "Cómo se imprimen las líneas".
  const printed = classA
    ? printedLinesWithoutIva(lines, new Map(invoice.iva_lines.map((l) => [l.rate, toCents(l.base)])))
    : printedLinesWithIva(lines);
  const lineRows = printed.map((l) => {
    const price = formatArs(l.unitCents);
    const q = quantity(l.quantityMilli, l.unit);
    // A row that is part of a split line: its bonificación is the whole line's.
    const whole = quantity(l.lineQuantityMilli, l.unit);
    const of =
      l.lineQuantityMilli === l.quantityMilli
        ? ''
        : l.unit === 'kg'
          ? ` sobre los ${whole} de la línea`
          : ` sobre las ${whole} unidades de la línea`;
    return html`<tr data-rate="${l.iva_rate}">
      <td class="desc">${l.name}${format === 'ticket' ? html`<br /><span class="muted"><span class="q">${q}</span> × <span class="p">${price}</span></span>` : ''}${l.discountCents > 0 ? html`<br /><span class="muted bonif" data-discount>Bonificación ${formatArs(l.discountCents)}${of} (ya descontada)</span>` : ''}</td>
      ${format === 'a4' ? html`<td class="num q">${q}</td><td class="num p">${price}</td>` : ''}
      ${classA ? html`<td class="num">${rateLabel(l.iva_rate)}</td>` : ''}
      <td class="num a">${formatArs(l.amountCents)}</td>
    </tr>`;
  });
  const totals = classA
    ? html`${invoice.iva_lines.map((l) => html`<tr data-net-rate="${l.rate}"><th>Neto gravado ${rateLabel(l.rate)}</th><td class="num">${money(l.base)}</td></tr>`)}
        <tr><th>Importe neto gravado</th><td class="num" id="net">${money(invoice.net ?? 0)}</td></tr>
        ${invoice.iva_lines.map((l) => html`<tr><th>IVA ${rateLabel(l.rate)}</th><td class="num">${money(l.amount)}</td></tr>`)}
        ${(invoice.exempt ?? 0) > 0 ? html`<tr data-net-rate="exento"><th>Importe exento</th><td class="num">${money(invoice.exempt ?? 0)}</td></tr>` : ''}`
    : '';
  const transparency = consumer
    ? html`<section class="transparency" data-rg5614>
        <h3>Régimen de Transparencia Fiscal al Consumidor (Ley 27.743)</h3>
        <p><span>IVA Contenido</span> <strong id="iva-contenido">${money(invoice.iva ?? 0)}</strong></p>
        <p><span>Otros Impuestos Nacionales Indirectos</span> <strong>${money(0)}</strong></p>
      </section>`
    : '';
  const issuerName = issuer.legalName ?? issuer.companyName;
  return html`<!doctype html>
<html lang="es-AR">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>${title} ${invoice.receipt} · ${issuerName}</title>
<link rel="stylesheet" href="${options.assets.styles}" />
<script src="${options.assets.script}" defer></script>
</head>
<body class="fiscal fiscal-${format}">
<div class="toolbar no-print">
  <button type="button" id="print">Imprimir</button>
  <a href="?formato=${format === 'a4' ? 'ticket' : 'a4'}">${format === 'a4' ? 'Ver ticket 80 mm' : 'Ver hoja A4'}</a>
</div>
<article class="receipt" aria-label="${title} ${invoice.receipt}">
  <header class="head">
    <div class="issuer">
      <h1>${issuerName}</h1>
      ${issuer.legalName && issuer.legalName !== issuer.companyName ? html`<p>${issuer.companyName}</p>` : ''}
      ${issuer.address ? html`<p>${issuer.address}</p>` : ''}
      <p>${issuer.ivaCondition ? ISSUER_CONDITIONS[issuer.ivaCondition] : ''}</p>
    </div>
    <div class="letter" aria-label="Clase ${letter}">
      <strong>${letter}</strong>
      <span>Cód. ${String(invoice.receipt_code ?? '').padStart(3, '0')}</span>
    </div>
    <div class="number">
      <h2>${title}</h2>
      <p>Punto de venta: <strong>${pos}</strong> · Comp. Nro: <strong id="receipt-number">${number}</strong></p>
      <p>Fecha de emisión: <strong>${issueDate}</strong></p>
      <p>CUIT: ${issuer.cuit ? formatCuit(issuer.cuit) : ''}</p>
      ${issuer.grossIncome ? html`<p>Ingresos Brutos: ${issuer.grossIncome}</p>` : ''}
      ${issuer.activityStart ? html`<p>Inicio de actividades: ${formatDate(issuer.activityStart)}</p>` : ''}
    </div>
  </header>
  <section class="buyer">
    <p>${buyer && buyer.doc_type !== 99 ? html`${buyer.doc_type_name}: <strong>${buyer.doc_type === 80 || buyer.doc_type === 86 ? formatCuit(buyer.doc_number ?? '') : buyer.doc_number}</strong>` : 'Consumidor final'}
      ${buyer?.name ? html` · ${buyer.name}` : ''}</p>
    ${buyer?.address ? html`<p>Domicilio: ${buyer.address}</p>` : ''}
    <p>Condición frente al IVA: ${buyer?.iva_condition_name ?? 'Consumidor Final'}</p>
    <p>Condición de venta: Contado</p>
    ${associated ? html`<p>Comprobante asociado: ${associated.kind === 'invoice' ? 'Factura' : 'Nota de crédito'} ${associated.receipt} del ${formatDate(associated.issue_date ?? associated.issued_at)}</p>` : ''}
  </section>
  <table class="lines">
    <thead><tr>
      <th>Descripción</th>
      ${format === 'a4' ? html`<th class="num">Cantidad</th><th class="num">${classA ? 'Precio unit. (sin IVA)' : 'Precio unit.'}</th>` : ''}
      ${classA ? html`<th class="num">IVA</th>` : ''}
      <th class="num">${classA ? 'Subtotal (sin IVA)' : 'Subtotal'}</th>
    </tr></thead>
    <tbody>${lineRows}</tbody>
  </table>
  <table class="totals">
    <tbody>
      ${totals}
      <tr class="total"><th>TOTAL</th><td class="num" id="invoice-total">${money(invoice.total)}</td></tr>
    </tbody>
  </table>
  ${transparency}
  <footer class="cae">
    ${qr ? html`<div class="qr" aria-label="Código QR de ARCA">${qr}</div>` : ''}
    <div>
      ${
        invoice.caea
          ? html`<p>CAEA N°: <strong id="cae">${invoice.cae}</strong></p>
      <p>Vigencia del CAEA hasta: <strong id="caea-valid-to">${formatDate(invoice.cae_expiration)}</strong></p>
      <p class="muted" id="caea-note">Emitido en contingencia con CAEA; se informa a ARCA.</p>`
          : html`<p>CAE N°: <strong id="cae">${invoice.cae}</strong></p>
      <p>Fecha de vto. de CAE: <strong>${formatDate(invoice.cae_expiration)}</strong></p>`
      }
      <p class="muted">Comprobante autorizado por ARCA${invoice.environment === 'homologacion' ? ' — HOMOLOGACIÓN: sin validez fiscal' : ''}</p>
    </div>
  </footer>
</article>
</body>
</html>`.value;
}
