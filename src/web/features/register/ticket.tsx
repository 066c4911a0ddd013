import { useEffect, useRef, useState } from 'preact/hooks';
import QRCode from 'qrcode';
import { formatCuit } from '../../../lib/cuit.ts';
import type { OfflineInvoice } from './store.ts';
import { formatDate, formatDateTime } from '../../../lib/format.ts';
import { formatArs, formatQuantity, fromMilli } from '../../../lib/money.ts';
import { methodLabel } from './methods.ts';
import { pricedSale } from './sale-state.ts';
import type { TicketData } from './types.ts';
import { InvoicePanel } from '../invoicing/invoice-panel.tsx';

export type { TicketData } from './types.ts';

const qty = (milli: number, unit: string) => formatQuantity(fromMilli(milli), unit);

/**
 * The 80 mm ticket: shop, sale, items, payments, change, and "no válido como factura"; below it,
 * for a sale the server has, "Facturar" (the fiscal receipt is its own printout, /facturas/:id).
 */
export function Ticket({
  data,
  company,
  onNew,
  doneLabel,
  doneId = 'ticket-new',
}: {
  data: TicketData;
  company: { name: string; cuit: string | null };
  onNew: () => void;
  /** The second button (a reprint from Mis ventas goes back instead of starting a sale); default «Nueva venta (Enter)». */
  doneLabel?: string;
  doneId?: string;
}) {
  // "Nueva venta" takes the focus: Enter (or the scanner's Enter) starts the next sale.
  const newRef = useRef<HTMLButtonElement>(null);
  const priced = pricedSale(data.lines, data.saleDiscount ?? null);
  const customerName = data.sale?.customer_name ?? data.customerName ?? null;
  useEffect(() => newRef.current?.focus(), []);
  return (
    <div class="ticket-screen">
      <article class="ticket" id="ticket" aria-label="Ticket">
        <header>
          <strong>{company.name}</strong>
          {company.cuit ? <div>CUIT {formatCuit(company.cuit)}</div> : null}
          <div>{formatDateTime(data.soldAt)}</div>
          <div>
            {data.boxName} · {data.sale ? `Venta N.º ${data.sale.id}` : 'Venta sin enviar (sin conexión)'}
          </div>
          {customerName ? <div id="ticket-customer">Cliente: {customerName}</div> : null}
        </header>
        <table>
          <tbody>
            {data.lines.map((l, n) => {
              const off = priced.lines[n]!.discountCents;
              return (
                <tr key={l.uid}>
                  <td>
                    {l.product.name}
                    <br />
                    <span class="muted">
                      {qty(l.qtyMilli, l.product.unit)} × {formatArs(l.priceCents)}
                    </span>
                    {off > 0 && l.discount ? (
                      <>
                        <br />
                        <span class="muted" data-ticket-line-discount>
                          Descuento ({l.discount.reason}) −{formatArs(off)}
                        </span>
                      </>
                    ) : null}
                  </td>
                  <td class="num">{formatArs(l.subtotalCents - off)}</td>
                </tr>
              );
            })}
            {priced.saleDiscountCents > 0 && data.saleDiscount ? (
              <tr id="ticket-sale-discount">
                <td>Descuento ({data.saleDiscount.reason})</td>
                <td class="num">−{formatArs(priced.saleDiscountCents)}</td>
              </tr>
            ) : null}
          </tbody>
        </table>
        <p class="ticket-total">
          <span>TOTAL</span>
          <span id="ticket-total">{formatArs(data.totalCents)}</span>
        </p>
        <ul class="ticket-payments">
          {data.payments.map((p, n) => (
            <li key={n}>
              <span>
                {methodLabel(p.method)}
                {p.reference ? ` (${p.reference})` : ''}
              </span>
              <span>{formatArs(p.cents)}</span>
            </li>
          ))}
          {data.changeCents > 0 ? (
            <li id="ticket-change">
              <span>Tu vuelto</span>
              <span>{formatArs(data.changeCents)}</span>
            </li>
          ) : null}
        </ul>
        {data.offlineInvoice ? (
          <OfflineInvoiceBlock invoice={data.offlineInvoice} />
        ) : (
          <p class="ticket-legal">Comprobante no válido como factura</p>
        )}
        <p class="ticket-thanks">¡Gracias por tu compra!</p>
      </article>
      <div class="row ticket-actions no-print" data-ticket-actions>
        <button type="button" onClick={() => window.print()}>
          Imprimir<span class="keyboard-hint"> (F9)</span>
        </button>
        <button type="button" class="secondary" ref={newRef} onClick={onNew} id={doneId}>
          {doneLabel ?? (
            <>
              Nueva venta<span class="keyboard-hint"> (Enter)</span>
            </>
          )}
        </button>
      </div>
      {data.offlineInvoice ? null : data.sale ? (
        <div class="ticket-invoice no-print">
          <InvoicePanel saleId={data.sale.id} total={data.sale.total} cancelled={false} canCreditNote={false} />
        </div>
      ) : data.invoiceNeedsBuyer ? (
        <p class="notice notice-error no-print" id="ticket-needs-buyer" role="alert">
          {
            'Desde $\u00a010.000.000 la factura lleva el CUIT o DNI del comprador (RG 5700) y sin conexión no se puede emitir: pedile el documento y facturá esta venta cuando vuelva la conexión.'
          }
        </p>
      ) : (
        <p class="muted no-print">La factura se emite cuando la venta llegue al servidor.</p>
      )}
    </div>
  );
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/**
 * The Factura B/C printed without connection under the CAEA: issuer, number, CAEA and its vigencia,
 * and the QR (tipoCodAut "A"). The full A4 printout is at /facturas/:id once the receipt is sent.
 */
function OfflineInvoiceBlock({ invoice }: { invoice: OfflineInvoice }) {
  const [qr, setQr] = useState<string | null>(null);
  useEffect(() => {
    QRCode.toString(invoice.qr_url, { type: 'svg', margin: 0, width: 120 })
      .then(setQr)
      .catch(() => setQr(null));
  }, [invoice.qr_url]);
  return (
    <section class="ticket-fiscal" id="ticket-invoice" aria-label="Factura">
      <p class="ticket-fiscal-title">
        <strong>
          FACTURA {invoice.letter} N.º {pad(invoice.point_of_sale, 4)}-{pad(invoice.number, 8)}
        </strong>
      </p>
      <div>{invoice.issuer.legal_name}</div>
      <div>CUIT {formatCuit(invoice.issuer.cuit)}</div>
      {invoice.issuer.address ? <div>{invoice.issuer.address}</div> : null}
      <div>A consumidor final</div>
      {qr ? <div class="ticket-qr" dangerouslySetInnerHTML={{ __html: qr }} /> : null}
      <div>
        CAEA N.º <strong id="ticket-caea">{invoice.caea}</strong>
      </div>
      <div>Vigencia del CAEA hasta {formatDate(invoice.valid_to)}</div>
      {invoice.issuer.environment === 'homologacion' ? <div class="muted">HOMOLOGACIÓN: sin validez fiscal</div> : null}
    </section>
  );
}
