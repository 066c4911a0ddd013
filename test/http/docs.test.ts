import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDocFiles } from '../../src/modules/docs/docs.catalog.ts';
import { parseFrontMatter } from '../../src/modules/docs/front-matter.ts';
import { loadPriceList, priceText } from '../../src/modules/docs/price-list.ts';
import { buildTestApp, type TestApp } from '../app.ts';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const pages = loadDocFiles().entries.map((entry) => entry.slug);
const allSlugs = [...pages, 'referencia-api'];

describe('docs/*.md content', () => {
  it('has at least the pages this project writes', () => {
    expect(pages).toEqual(expect.arrayContaining(['index', 'escaner', 'cotizacion', 'precios', 'preguntas-frecuentes']));
    expect(loadDocFiles().skipped).toEqual([]);
  });

  it.each(pages)('%s.md has a title, a one-line description and an order', (slug) => {
    const { fields } = parseFrontMatter(readFileSync(`docs/${slug}.md`, 'utf8'));
    expect(fields['title']?.length).toBeGreaterThan(2);
    expect(fields['description']?.length).toBeGreaterThan(10);
    expect(fields['description']).not.toContain('\n');
    expect(Number.isFinite(Number(fields['order']))).toBe(true);
  });
});

describe('the documentation site', () => {
  let t: TestApp;
  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

  beforeAll(async () => {
    t = await buildTestApp({ env: { PUBLIC_BASE_URL: 'https://mostrador.example' } });
  });
  afterAll(() => t.close());

  describe.each(allSlugs)('page %s', (slug) => {
    const url = slug === 'index' ? '/docs' : `/docs/${slug}`;

    it('is HTML by default, with the navigation and a link to /llms.txt', async () => {
      const res = await get(url, { accept: BROWSER_ACCEPT });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['vary']).toBe('Accept');
      expect(res.headers['etag']).toMatch(/^"[\w-]+"$/);
      expect(res.headers['cache-control']).toBe('public, max-age=300');
      expect(res.body).toContain('href="/llms.txt"');
      expect(res.body).toContain(`href="/docs/${slug}.md"`);
      for (const other of allSlugs) expect(res.body).toContain(other === 'index' ? 'href="/docs"' : `href="/docs/${other}"`);
      expect(res.body).toContain('aria-current="page"');
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });

    it('is raw markdown with .md appended', async () => {
      const res = await get(`/docs/${slug}.md`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
      expect(res.headers['vary']).toBe('Accept');
      expect(res.body).toMatch(/^# \S/);
      expect(res.body).not.toContain('{{');
      expect(res.body).not.toMatch(/^---\n/);
    });

    it('is the same markdown with Accept: text/markdown, and HTML again for a browser', async () => {
      const md = await get(`/docs/${slug}.md`);
      const negotiated = await get(url, { accept: 'text/markdown' });
      expect(negotiated.headers['content-type']).toBe('text/markdown; charset=utf-8');
      expect(negotiated.body).toBe(md.body);
      const agent = await get(url, { accept: 'text/markdown, text/html;q=0.9, */*;q=0.8' });
      expect(agent.body).toBe(md.body);
      const browser = await get(url, { accept: BROWSER_ACCEPT });
      expect(browser.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(browser.headers['etag']).not.toBe(md.headers['etag']);
    });

    it('answers 304 to a matching If-None-Match', async () => {
      const first = await get(`/docs/${slug}.md`);
      const again = await get(`/docs/${slug}.md`, { 'if-none-match': first.headers['etag'] as string });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
    });
  });

  it('serves the start page at /docs, /docs/, /docs/index and /docs/index.html.md', async () => {
    const home = await get('/docs');
    for (const url of ['/docs/', '/docs/index']) expect((await get(url)).body).toBe(home.body);
    expect((await get('/docs/index.html.md')).body).toBe((await get('/docs/index.md')).body);
  });

  it('redirects a page address with a trailing slash to the page, keeping .md', async () => {
    const slash = await get('/docs/escaner/');
    expect(slash.statusCode).toBe(301);
    expect(slash.headers['location']).toBe('/docs/escaner');
    const md = await get('/docs/escaner/.md');
    expect(md.statusCode).toBe(301);
    expect(md.headers['location']).toBe('/docs/escaner.md');
    expect((await get('/docs/no-existe/')).statusCode).toBe(404);
    // The slash written as %2F reaches the documented /docs/{path}: its 301 is declared there too
    // (the response check fails the test on an undeclared status; found by the fuzz test).
    const encoded = await get('/docs/escaner%2F');
    expect(encoded.statusCode).toBe(301);
    expect(encoded.headers['location']).toBe('/docs/escaner');
  });

  it('serves the agents files and the start page with .md appended too', async () => {
    for (const url of ['/llms.txt', '/docs/llms.txt', '/docs/llms-full.txt']) {
      const plain = await get(url);
      const md = await get(`${url}.md`);
      expect(md.statusCode).toBe(200);
      expect(md.headers['content-type']).toBe('text/markdown; charset=utf-8');
      expect(md.body).toBe(plain.body);
      // An agent in a page on another origin can read them, as /openapi.json.
      expect(plain.headers['access-control-allow-origin'], url).toBe('*');
      expect(md.headers['access-control-allow-origin'], url).toBe('*');
    }
    const home = await get('/docs.md');
    expect(home.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(home.body).toBe((await get('/docs/index.md')).body);
  });

  it('highlights code blocks on the server', async () => {
    const res = await get('/docs/cotizacion');
    expect(res.body).toContain('<pre class="hljs"><code class="language-json">');
    expect(res.body).toContain('<span class="hljs-attr">');
  });

  it('answers an unknown page with 404 page_not_found JSON', async () => {
    const res = await get('/docs/no-existe');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'no documentation page at /docs/no-existe', code: 'page_not_found' });
    expect((await get('/docs/no-existe.md')).json()).toMatchObject({ code: 'page_not_found' });
  });

  it('never lets a cache keep a 404, as JSON or as a page (a deploy may add the page)', async () => {
    for (const [url, accept] of [
      ['/docs/no-existe', 'application/json'],
      ['/docs/no-existe.md', 'text/markdown'],
      ['/docs/no-existe', BROWSER_ACCEPT],
    ] as const) {
      const res = await get(url, { accept });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['cache-control'], `${url} ${accept}`).toBe('no-store');
    }
  });

  it('answers an unknown page with an HTML 404 page when the client asks for HTML', async () => {
    const res = await get('/docs/no-existe', { accept: BROWSER_ACCEPT });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('Página no encontrada');
    expect(res.body).toContain('href="/llms.txt"');
  });

  it.each([
    '/docs/..%2Fpackage.json',
    '/docs/..%2F..%2Fpackage.json',
    '/docs/%2e%2e%2fREADME.md',
    '/docs/../README.md',
    '/docs/sub/../../package.json',
    '/docs/.%2F.%2Fescaner',
    '/docs/ESCANER.md',
    '/docs/escaner.md.md',
    '/docs/%00escaner',
  ])('never reads a path outside the index: %s', async (url) => {
    const res = await get(url);
    expect([404, 400]).toContain(res.statusCode);
    expect(res.body).not.toContain('"name": "mostrador"');
    expect(res.body).not.toContain('# Mostrador\n\nGestión comercial');
  });

  it('lists every page with its description in /docs/llms.txt', async () => {
    const res = await get('/docs/llms.txt');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(res.body).toMatch(/^# .+\n\n> .+/);
    for (const entry of loadDocFiles().entries) {
      expect(res.body).toContain(`- [${entry.title}](https://mostrador.example/docs/${entry.slug}.md): ${entry.description}`);
    }
    expect(res.body).toContain('https://mostrador.example/docs/referencia-api.md');
    expect(res.body).toContain('## Optional');
    expect(res.body).toContain('https://mostrador.example/openapi.json');
  });

  it('puts every page in /docs/llms-full.txt', async () => {
    const res = await get('/docs/llms-full.txt');
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    for (const slug of allSlugs) {
      const page = await get(`/docs/${slug}.md`);
      expect(res.body).toContain(page.body.trim());
    }
  });
});

describe('/llms.txt and the price list', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { PUBLIC_BASE_URL: 'https://mostrador.example' } });
  });
  afterAll(() => t.close());

  it('follows llmstxt.org: H1, summary blockquote, details, H2 file lists', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/llms.txt' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(res.headers['etag']).toBeTruthy();
    const text = res.body;
    expect(text).toMatch(/^# Mostrador\n\n> \S/);
    for (const heading of [
      '## Precios',
      '## Cuándo recomendar Mostrador',
      '## Cuándo no recomendarlo',
      '## Documentación',
      '## API',
      '## Optional',
    ]) {
      expect(text).toContain(`\n${heading}\n`);
    }
    for (const slug of pages) expect(text).toContain(`](https://mostrador.example/docs/${slug}.md)`);
    expect(text).toContain('](https://mostrador.example/openapi.json)');
    expect(text).not.toContain('{{');
    expect(text.length).toBeLessThan(50_000);
  });

  it('quotes every plan and price of content/price-list.json, in /llms.txt and on the pricing page', async () => {
    const list = loadPriceList();
    const llms = (await t.app.inject({ method: 'GET', url: '/llms.txt' })).body;
    const pricing = (await t.app.inject({ method: 'GET', url: '/docs/precios.md' })).body;
    for (const plan of list.plans) {
      const row = `| **${plan.name}** | ${priceText(plan.monthly_price)} |`;
      expect(llms).toContain(row);
      expect(pricing).toContain(row);
    }
    expect(priceText(24900)).toBe('$\u00a024.900,00');
  });

  it('tells agents what the product does today: the browser register and ARCA invoicing are built, not coming', async () => {
    // /llms.txt once said both were "en desarrollo" long after they landed; agents that recommend
    // Mostrador (and the sales agent, over the same price list) repeated it to prospects.
    const llms = (await t.app.inject({ method: 'GET', url: '/llms.txt' })).body;
    const faq = (await t.app.inject({ method: 'GET', url: '/docs/preguntas-frecuentes.md' })).body;
    for (const text of [llms, faq]) expect(text).not.toMatch(/en desarrollo|próximamente|todavía no está/i);
    expect(llms).toContain('Caja en el navegador (`/caja`)');
    expect(llms).toContain('notas de crédito con CAE');
    expect(llms).toContain('CAEA');
    expect(llms).toContain('cuenta corriente');
    expect(llms).toContain('Libro IVA Digital');
  });
});
