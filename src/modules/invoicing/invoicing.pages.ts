import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import type { AssetCatalog } from '../../http/assets.ts';
import { html, sendHtml } from '../../http/page.ts';
import { companyCtx } from '../../http/request-context.ts';
import type { Shell } from '../../http/shell.ts';
import type { FiscalService } from './fiscal.service.ts';
import type { InvoicingService } from './invoicing.service.ts';
import { renderPrintout } from './printout.ts';

/** The printout of a receipt (/facturas/:id, A4 or ?formato=ticket): every member of the company. */
export function registerInvoicePrintPage(
  app: App,
  { fiscal, invoicing, assets }: { fiscal: FiscalService; invoicing: InvoicingService; assets: AssetCatalog },
) {
  const files = { script: assets.url('factura.js'), styles: assets.url('factura.css') };
  app.get(
    '/facturas/:id',
    {
      schema: {
        hide: true,
        params: Type.Object({ id: Type.String({ maxLength: 12 }) }),
        querystring: Type.Object({
          formato: Type.Optional(Type.String({ maxLength: 10 })),
          imprimir: Type.Optional(Type.String({ maxLength: 2 })),
        }),
      },
    },
    async (request, reply) => {
      const { companyId } = companyCtx(request.ctx);
      const id = Number(request.params.id);
      const found = /^\d{1,9}$/.test(request.params.id) ? await invoicing.printable(companyId, id) : null;
      if (!found) {
        return sendHtml(
          reply,
          html`<!doctype html><html lang="es-AR"><head><meta charset="utf-8" /><title>Comprobante no encontrado</title></head>
<body><h1>Comprobante no encontrado</h1><p>No hay un comprobante ${request.params.id} en esta empresa. <a href="/ventas">Volver a Ventas</a></p></body></html>`
            .value,
          { status: 404 },
        );
      }
      const issuer = await fiscal.issuer(companyId);
      const associated =
        found.invoice.associated_invoice_id === null
          ? null
          : await invoicing.get(companyCtx(request.ctx), found.invoice.associated_invoice_id);
      const page = await renderPrintout({
        invoice: found.invoice,
        lines: found.lines,
        // The CUIT the receipt was issued under, even if the company's changed since.
        issuer: { ...issuer, cuit: found.invoice.issuer_cuit ?? issuer.cuit },
        associated,
        format: request.query.formato === 'ticket' ? 'ticket' : 'a4',
        assets: files,
      });
      return sendHtml(reply, page);
    },
  );
}

/** The fiscal setup screen (/settings/facturacion): admins. */
export function registerFiscalSettingsPage(app: App, { fiscal, shell }: { fiscal: FiscalService; shell: Shell }) {
  app.get('/settings/facturacion', { schema: { hide: true } }, async (request, reply) => {
    const { companyId } = companyCtx(request.ctx);
    return shell.send(request, reply, {
      title: 'Facturación',
      entry: 'settings-fiscal',
      data: { setup: await fiscal.get(companyId) },
    });
  });
}
