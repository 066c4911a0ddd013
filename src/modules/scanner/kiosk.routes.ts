import { readFileSync } from 'node:fs';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import { etagOf, sendCacheable } from '../../http/cacheable.ts';
import { renderKioskPage, renderKioskProblem } from './kiosk.page.ts';
import type { ScannerService } from './scanner.service.ts';

const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  'img-src https: http: data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function asset(name: string, contentType: string) {
  const body = readFileSync(new URL(`./public/${name}`, import.meta.url), 'utf8');
  return { body, contentType, etag: etagOf(body), cacheControl: 'public, max-age=300' };
}

function sendPage(reply: FastifyReply, status: number, html: string) {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', PAGE_CSP)
    .type('text/html; charset=utf-8')
    .send(html);
}

/** The price-checker page for a tablet with a USB barcode reader, and its two static files. */
export function registerKioskPage(app: App, scanner: ScannerService) {
  const script = asset('kiosk.js', 'text/javascript; charset=utf-8');
  const styles = asset('kiosk.css', 'text/css; charset=utf-8');

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
          ),
        );
      }
      return sendPage(reply, 200, renderKioskPage(company.name, company.timezone));
    },
  );

  app.get('/scanner/kiosk.js', { schema: { hide: true } }, (request, reply) => sendCacheable(request, reply, script));
  app.get('/scanner/kiosk.css', { schema: { hide: true } }, (request, reply) => sendCacheable(request, reply, styles));
}
