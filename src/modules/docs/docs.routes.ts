import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import type { AssetCatalog } from '../../http/assets.ts';
import { PAGE_CSP } from '../../http/page.ts';
import type { Logger } from '../../logger.ts';
import { etagOf, sendCacheable } from '../../http/cacheable.ts';
import { ErrorBody } from '../../http/error-body.schema.ts';
import { AppError } from '../../lib/errors.ts';
import { renderApiReference } from './api-reference.ts';
import { contractDocument, merchantDocument } from './openapi-split.ts';
import { truthfulDocument } from './openapi-truth.ts';
import { DOCS_DIR, type DocEntry, loadDocFiles } from './docs.catalog.ts';
import { createDocsSite, type DocsSite, loadLlmsTemplate, type Representation } from './docs.site.ts';
import { asksForHtml, prefersMarkdown } from './negotiation.ts';
import { loadPriceList } from './price-list.ts';

const MARKDOWN = 'text/markdown; charset=utf-8';
const HTML = 'text/html; charset=utf-8';
const CACHE = 'public, max-age=300';

const markdownResponse = (description: string) => ({ description, content: { 'text/markdown': { schema: Type.String() } } });
const pageResponse = {
  description: 'La página, en HTML o en markdown según Accept o el sufijo .md',
  content: { 'text/html': { schema: Type.String() }, 'text/markdown': { schema: Type.String() } },
};

function send(request: FastifyRequest, reply: FastifyReply, item: Representation, contentType: string, vary?: string): void {
  reply.header('x-content-type-options', 'nosniff');
  if (contentType === HTML) reply.header('content-security-policy', PAGE_CSP);
  sendCacheable(request, reply, { ...item, contentType, cacheControl: CACHE, ...(vary ? { vary } : {}) });
}

/** Serves one page of the index by its address; anything else is a 404 without touching the disk. */
function servePage(site: DocsSite, request: FastifyRequest, reply: FastifyReply, path: string): void {
  reply.header('vary', 'Accept');
  const suffixed = path.endsWith('.md');
  let slug = suffixed ? path.slice(0, -3) : path;
  // A page's address with a trailing slash (/docs/escaner/, /docs/escaner/.md) is the same page:
  // redirected to its one address, so relative links and caches see one URL.
  const trimmed = slug.replace(/\/+$/, '');
  if (trimmed !== slug && site.markdown(trimmed === '' ? 'index' : trimmed)) {
    reply.redirect(`/docs${trimmed === '' ? '' : `/${trimmed}`}${suffixed ? '.md' : ''}`, 301);
    return;
  }
  if (slug === '' || slug === 'index.html') slug = 'index';
  const asMarkdown = suffixed || prefersMarkdown(request.headers.accept);
  const found = asMarkdown ? site.markdown(slug) : site.html(slug);
  if (found) {
    send(request, reply, found, asMarkdown ? MARKDOWN : HTML, 'Accept');
    return;
  }
  // A 404 is cacheable by default (RFC 9111 §4.2.2): without no-store a shared cache could keep
  // answering it after a deploy adds the page. Both forms (the HTML page and the JSON body) say so.
  reply.header('cache-control', 'no-store');
  if (!suffixed && asksForHtml(request.headers.accept) && !prefersMarkdown(request.headers.accept)) {
    reply
      .code(404)
      .type(HTML)
      .send(site.notFoundHtml(`/docs/${path}`));
    return;
  }
  throw new AppError('page_not_found', `no documentation page at /docs/${path}`);
}

function apiReferenceEntry(app: App): DocEntry {
  let body: string | null = null;
  return {
    slug: 'referencia-api',
    title: 'Referencia de la API',
    description: 'Cada endpoint con sus parámetros, respuestas y esquemas, generado del documento OpenAPI 3.1.',
    order: 95,
    body: () => {
      body ??= renderApiReference(contractDocument(app.swagger() as never) as never);
      return body;
    },
  };
}

/** The llms files: product summary for agents, the page index, everything in one file. */
function registerLlmsRoutes(app: App, site: DocsSite) {
  const files: [string, string, string, () => Representation][] = [
    ['/llms.txt', 'llmsTxt', 'Mostrador para agentes: producto, funciones, precios y cuándo recomendarlo', site.llms],
    ['/docs/llms.txt', 'docsIndex', 'Índice de todas las páginas de la documentación, con su descripción', site.docsIndex],
    ['/docs/llms-full.txt', 'docsFull', 'Toda la documentación en un solo archivo markdown', site.full],
  ];
  // Read by agents, also from a page on another origin (as /openapi.json): CORS open.
  const serve = (representation: () => Representation) => (request: FastifyRequest, reply: FastifyReply) =>
    send(request, reply.header('access-control-allow-origin', '*'), representation(), MARKDOWN);
  for (const [url, operationId, summary, representation] of files) {
    app.get(
      url,
      { schema: { tags: ['Docs'], operationId, summary, response: { 200: markdownResponse('Markdown (llmstxt.org)') } } },
      serve(representation),
    );
    // Markdown already: with .md appended (as for any /docs/* address) it is the same file.
    app.get(`${url}.md`, { schema: { hide: true } }, serve(representation));
  }
}

function registerOpenApiRoute(app: App) {
  let document: Representation | null = null;
  const schema = Type.Object({}, { additionalProperties: true });
  app.get(
    '/openapi.json',
    {
      schema: {
        tags: ['Docs'],
        operationId: 'openApi',
        summary: 'Este documento OpenAPI 3.1',
        response: { 200: { description: 'OpenAPI 3.1.0', content: { 'application/json': { schema } } } },
      },
    },
    (request, reply) => {
      if (!document) {
        const body = JSON.stringify(truthfulDocument(contractDocument(app.swagger() as never)));
        document = { body, etag: etagOf(body) };
      }
      send(request, reply.header('access-control-allow-origin', '*'), document, 'application/json; charset=utf-8');
    },
  );
  let merchant: Representation | null = null;
  app.get(
    '/docs/openapi-comercio.json',
    {
      schema: {
        tags: ['Docs'],
        operationId: 'merchantOpenApi',
        summary: 'OpenAPI 3.1 de la API del comercio (/api/v1: catálogo, stock, cajas y ventas)',
        response: { 200: { description: 'OpenAPI 3.1.0', content: { 'application/json': { schema } } } },
      },
    },
    (request, reply) => {
      if (!merchant) {
        const body = JSON.stringify(truthfulDocument(merchantDocument(app.swagger() as never)));
        merchant = { body, etag: etagOf(body) };
      }
      send(request, reply.header('access-control-allow-origin', '*'), merchant, 'application/json; charset=utf-8');
    },
  );
}

/** The example spreadsheet of the merchant API guide (/docs/api-comercio). */
function registerExampleFiles(app: App) {
  const csv = readFileSync(join(DOCS_DIR, 'ejemplo-productos.csv'));
  const item = { body: csv.toString('utf8'), etag: etagOf(csv.toString('utf8')) };
  app.get('/docs/ejemplo-productos.csv', { schema: { hide: true } }, (request, reply) => {
    reply.header('content-disposition', 'attachment; filename="ejemplo-productos.csv"');
    send(request, reply, item, 'text/csv; charset=utf-8');
  });
}

function registerPageRoutes(app: App, site: DocsSite) {
  const page = (path: (request: FastifyRequest) => string) => (request: FastifyRequest, reply: FastifyReply) =>
    servePage(site, request, reply, path(request));
  app.get(
    '/docs',
    {
      schema: { tags: ['Docs'], operationId: 'docsHome', summary: 'Inicio de la documentación', response: { 200: pageResponse } },
    },
    page(() => 'index'),
  );
  app.get(
    '/docs/:path',
    {
      schema: {
        tags: ['Docs'],
        operationId: 'docsPage',
        summary: 'Una página de la documentación',
        description: 'HTML por defecto; markdown con `Accept: text/markdown` o agregando `.md` (respuestas con `Vary: Accept`).',
        params: Type.Object({
          path: Type.String({ maxLength: 200, description: 'Dirección de la página, por ejemplo escaner o escaner.md' }),
        }),
        response: {
          200: pageResponse,
          // JSON for API clients, the site's own 404 page for a browser (Accept: text/html).
          404: {
            description: 'No existe esa página (code page_not_found); una página HTML si el cliente pide HTML',
            content: { 'application/json': { schema: ErrorBody }, 'text/html': { schema: Type.String() } },
          },
        },
      },
    },
    page((request) => (request.params as { path: string }).path),
  );
  // Aliases and deeper paths: the same lookup, so anything outside the index is a page_not_found.
  app.get(
    '/docs/',
    { schema: { hide: true } },
    page(() => 'index'),
  );
  app.get(
    '/docs.md',
    { schema: { hide: true } },
    page(() => 'index.md'),
  );
  app.get(
    '/docs/*',
    { schema: { hide: true } },
    page((request) => (request.params as { '*': string })['*']),
  );
}

/** The docs site, the llms files and the OpenAPI document. */
export function registerDocsRoutes(
  app: App,
  { logger, baseUrl, assets }: { logger: Logger; baseUrl: string; assets: AssetCatalog },
) {
  const loaded = loadDocFiles();
  for (const skipped of loaded.skipped) logger.warn(skipped, 'docs file skipped');
  const site = createDocsSite({
    entries: [...loaded.entries, apiReferenceEntry(app)],
    priceList: loadPriceList(),
    baseUrl,
    llmsTemplate: loadLlmsTemplate(),
    cssHref: assets.url('docs.css'),
  });
  registerLlmsRoutes(app, site);
  registerOpenApiRoute(app);
  registerExampleFiles(app);
  registerPageRoutes(app, site);
}
