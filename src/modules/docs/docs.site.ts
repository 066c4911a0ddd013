import { readFileSync } from 'node:fs';
import { etagOf } from '../../http/cacheable.ts';
import { escapeHtml } from '../../lib/html.ts';
import { type DocEntry, sortEntries } from './docs.catalog.ts';
import { docsHref, markdownHref, renderLayout } from './layout.ts';
import { renderMarkdown } from './markdown.ts';
import { type PriceList, renderPriceList } from './price-list.ts';

export const LLMS_TEMPLATE_PATH = new URL('../../../content/llms.md', import.meta.url);

export interface Representation {
  body: string;
  etag: string;
}

export interface DocsSiteOptions {
  entries: DocEntry[];
  priceList: PriceList;
  /** Absolute links in the llms files start here (PUBLIC_BASE_URL). */
  baseUrl: string;
  llmsTemplate: string;
  /** The hashed address of the docs stylesheet (src/http/assets.ts). */
  cssHref: string;
}

export type DocsSite = ReturnType<typeof createDocsSite>;

/**
 * Every representation the docs serve (HTML page, markdown page, the llms files), built once on
 * first use and kept with its ETag. Pages can use `{{price-list}}` and `{{pages}}` in their text.
 */
export function createDocsSite({ entries, priceList, baseUrl, llmsTemplate, cssHref }: DocsSiteOptions) {
  const sorted = sortEntries(entries);
  const bySlug = new Map(sorted.map((entry) => [entry.slug, entry]));
  const nav = sorted.map(({ slug, title }) => ({ slug, title }));
  const cache = new Map<string, Representation>();

  function memo(key: string, make: () => string): Representation {
    let found = cache.get(key);
    if (!found) {
      const body = make();
      found = { body, etag: etagOf(body) };
      cache.set(key, found);
    }
    return found;
  }

  function expand(text: string): string {
    return text
      .replaceAll('{{price-list}}', () => renderPriceList(priceList))
      .replaceAll('{{pages}}', () => sorted.map((e) => `- [${e.title}](${docsHref(e.slug)}): ${e.description}`).join('\n'))
      .replaceAll('{{pages-md}}', () =>
        sorted.map((e) => `- [${e.title}](${baseUrl}${markdownHref(e.slug)}): ${e.description}`).join('\n'),
      )
      .replaceAll('{{base_url}}', baseUrl);
  }

  /** The page as markdown: its title and description on top unless the body starts with its own title. */
  function pageMarkdown(entry: DocEntry): string {
    const body = expand(entry.body()).trim();
    if (/^#\s/.test(body)) return `${body}\n`;
    const lead = entry.description ? `> ${entry.description}\n\n` : '';
    return `# ${entry.title}\n\n${lead}${body}\n`;
  }

  const markdown = (slug: string) => {
    const entry = bySlug.get(slug);
    return entry ? memo(`md:${slug}`, () => pageMarkdown(entry)) : null;
  };

  const html = (slug: string) => {
    const entry = bySlug.get(slug);
    if (!entry) return null;
    return memo(`html:${slug}`, () =>
      renderLayout({
        title: entry.title,
        description: entry.description,
        nav,
        cssHref,
        current: slug,
        contentHtml: renderMarkdown(markdown(slug)!.body),
      }),
    );
  };

  const notFoundHtml = (path: string) =>
    renderLayout({
      title: 'Página no encontrada',
      description: 'La página que buscás no existe.',
      nav,
      cssHref,
      current: null,
      contentHtml: `<h1>Página no encontrada</h1><p>No hay ninguna página en <code>${escapeHtml(path)}</code>. Elegí una del menú o volvé al <a href="/docs">inicio</a>.</p>`,
    });

  const docsIndex = () =>
    memo('llms:docs', () =>
      [
        '# Mostrador · Documentación',
        '',
        '> Documentación de Mostrador, gestión comercial multiempresa para negocios de Argentina (punto de venta, stock por depósito, facturación electrónica ARCA, escáner de precios, integraciones). Cada página está en markdown agregando `.md` a su dirección.',
        '',
        '## Páginas',
        '',
        expand('{{pages-md}}'),
        '',
        '## Optional',
        '',
        `- [Documentación completa](${baseUrl}/docs/llms-full.txt): todas las páginas en un solo archivo.`,
        `- [OpenAPI 3.1](${baseUrl}/openapi.json): descripción de la API pública, generada de los mismos esquemas que validan cada pedido.`,
        `- [Producto y precios](${baseUrl}/llms.txt): qué es Mostrador, cuánto cuesta y cuándo recomendarlo.`,
        '',
      ].join('\n'),
    );

  const full = () =>
    memo('llms:full', () =>
      [
        '# Mostrador · Documentación completa',
        '',
        `> Todas las páginas de ${baseUrl}/docs en un solo archivo, en el orden del menú.`,
        '',
        ...sorted.map((entry) => `${pageMarkdown(entry).trim()}\n`),
      ].join('\n'),
    );

  const llms = () => memo('llms:root', () => `${expand(llmsTemplate).trim()}\n`);

  return { slugs: () => sorted.map((e) => e.slug), markdown, html, notFoundHtml, docsIndex, full, llms };
}

export function loadLlmsTemplate(path: URL | string = LLMS_TEMPLATE_PATH): string {
  return readFileSync(path, 'utf8');
}
