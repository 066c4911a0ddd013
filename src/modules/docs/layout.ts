import { escapeHtml } from '../../lib/html.ts';

export interface NavItem {
  slug: string;
  title: string;
}

export interface LayoutInput {
  title: string;
  description: string;
  nav: NavItem[];
  cssHref: string;
  /** The page shown (highlighted in the navigation); null for the not-found page. */
  current: string | null;
  contentHtml: string;
}

export const docsHref = (slug: string) => (slug === 'index' ? '/docs' : `/docs/${slug}`);
export const markdownHref = (slug: string) => `/docs/${slug}.md`;

function renderNav(nav: NavItem[], current: string | null): string {
  const items = nav.map((item) => {
    const active = item.slug === current ? ' aria-current="page"' : '';
    return `<li><a href="${docsHref(item.slug)}"${active}>${escapeHtml(item.title)}</a></li>`;
  });
  return `<nav aria-label="Documentación"><ul>${items.join('')}</ul></nav>`;
}

/** The HTML shell of every docs page: navigation, the llms.txt links, the rendered content. */
export function renderLayout({ title, description, nav, cssHref, current, contentHtml }: LayoutInput): string {
  const markdownLink = current ? ` · <a href="${markdownHref(current)}">Ver en markdown</a>` : '';
  return `<!doctype html>
<html lang="es-AR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Mostrador</title>
<meta name="description" content="${escapeHtml(description)}">
${current ? `<link rel="alternate" type="text/markdown" href="${markdownHref(current)}">` : ''}
<link rel="stylesheet" href="${cssHref}">
</head>
<body>
<header class="site"><a class="brand" href="/docs">Mostrador · Documentación</a><span class="agents"><a href="/llms.txt">llms.txt</a> · <a href="/docs/llms.txt">índice para agentes</a> · <a href="/openapi.json">OpenAPI</a></span></header>
<div class="wrap">
${renderNav(nav, current)}
<main>
<p class="directive">Para el índice completo de la documentación, mirá <a href="/docs/llms.txt">llms.txt</a>; cada página está en markdown agregando <code>.md</code> a su dirección${markdownLink}.</p>
${contentHtml}
</main>
</div>
</body>
</html>
`;
}
