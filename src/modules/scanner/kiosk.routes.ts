import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import type { AssetCatalog } from '../../http/assets.ts';
import { sendHtml } from '../../http/page.ts';
import { renderKioskPage, renderKioskProblem } from './kiosk.page.ts';
import type { ScannerService } from './scanner.service.ts';

// The kiosk keeps its own look but shares the CSP, the headers and the hashed assets of every page;
// no referrer, because the token is in the address.
function sendPage(reply: FastifyReply, status: number, html: string) {
  return sendHtml(reply, html, { status, referrer: 'no-referrer' });
}

/** The price-checker page for a tablet with a USB barcode reader, and its two static files. */
export function registerKioskPage(app: App, scanner: ScannerService, catalog: AssetCatalog) {
  const assets = { script: catalog.url('kiosk.js'), styles: catalog.url('kiosk.css') };

  app.get(
    '/scanner',
    {
      schema: {
        tags: ['Public'],
        operationId: 'kioskPage',
        summary: 'Página del consultor de precios (kiosco)',
        description: 'Página en pantalla completa para una tablet con lector de códigos. Abrila con el token del escáner.',
        querystring: Type.Object({ token: Type.Optional(Type.String({ maxLength: 200 })) }),
        response: {
          200: { description: 'Página HTML', content: { 'text/html': { schema: Type.String() } } },
          400: { description: 'Falta el token (página HTML)', content: { 'text/html': { schema: Type.String() } } },
          401: { description: 'Token inválido (página HTML)', content: { 'text/html': { schema: Type.String() } } },
        },
      },
    },
    async (request, reply) => {
      const token = request.query.token?.trim();
      if (!token) {
        return sendPage(
          reply,
          400,
          renderKioskProblem(
            'Falta el token del escáner',
            'Abrí esta página con ?token=… (el token del escáner que recibiste al crear la empresa o al renovarlo).',
            assets,
          ),
        );
      }
      const company = await scanner.kioskCompany(token);
      if (!company) {
        return sendPage(
          reply,
          401,
          renderKioskProblem(
            'Escáner no autorizado',
            'El token de este escáner no es válido o fue reemplazado. Pedí el enlace nuevo al encargado.',
            assets,
          ),
        );
      }
      return sendPage(reply, 200, renderKioskPage(company.name, company.timezone, assets));
    },
  );

  // Kiosk pages saved before the files moved to hashed addresses still find them.
  app.get('/scanner/kiosk.js', { schema: { hide: true } }, (_request, reply) => reply.redirect(assets.script, 301));
  app.get('/scanner/kiosk.css', { schema: { hide: true } }, (_request, reply) => reply.redirect(assets.styles, 301));
}
