import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthService, AuthSession } from '../modules/auth/auth.service.ts';
import type { MembershipSummary } from '../modules/auth/sessions.repo.ts';
import type { AssetCatalog } from './assets.ts';
import { html, jsonForScript, type SafeHtml, sendHtml } from './page.ts';

/**
 * The app shell of every signed-in page (and of the login page): server-rendered header with the
 * company (a switch when the person is in several), the person and "Cerrar sesión"; navigation by
 * role listing only screens that exist; the page's initial data as JSON; the page's entry script.
 */

interface NavItem {
  href: string;
  label: string;
  shows(session: AuthSession): boolean;
}

const isAdmin = (s: AuthSession) => s.companyId !== null && s.role === 'admin';
const isMember = (s: AuthSession) => s.companyId !== null && s.role !== null;

export const NAV: readonly NavItem[] = [
  { href: '/superadmin/companies', label: 'Empresas', shows: (s) => s.isSuperadmin },
  { href: '/superadmin/instagram', label: 'Instagram', shows: (s) => s.isSuperadmin },
  { href: '/superadmin/whatsapp', label: 'WhatsApp', shows: (s) => s.isSuperadmin },
  { href: '/superadmin/instagram/agent', label: 'Agente de ventas', shows: (s) => s.isSuperadmin },
  { href: '/inicio', label: 'Inicio', shows: isAdmin },
  { href: '/productos', label: 'Productos', shows: isAdmin },
  { href: '/clientes', label: 'Clientes', shows: isAdmin },
  { href: '/stock', label: 'Stock', shows: isAdmin },
  { href: '/depositos', label: 'Depósitos y cajas', shows: isAdmin },
  { href: '/settings/integrations', label: 'Integraciones', shows: isAdmin },
  { href: '/settings/api-tokens', label: 'Tokens de API', shows: isAdmin },
  { href: '/settings/people', label: 'Personas', shows: isAdmin },
  { href: '/caja', label: 'Caja', shows: isMember },
  { href: '/ventas', label: 'Ventas', shows: isAdmin },
  { href: '/mis-ventas', label: 'Mis ventas', shows: isMember },
  { href: '/cierres', label: 'Cierres de caja', shows: isAdmin },
  { href: '/cuentas-corrientes', label: 'Cuentas corrientes', shows: isAdmin },
  { href: '/reportes', label: 'Reportes', shows: isAdmin },
  { href: '/libro-iva', label: 'Libro IVA', shows: isAdmin },
  { href: '/settings/scanner', label: 'Escáner', shows: isAdmin },
  { href: '/settings/facturacion', label: 'Facturación', shows: isAdmin },
  { href: '/cuenta', label: 'Mi cuenta', shows: () => true },
  { href: '/docs', label: 'Ayuda', shows: () => true },
];

export const ROLE_LABELS: Record<string, string> = { admin: 'administración', cashier: 'caja' };

/** Where `/` takes a person: the first screen of their navigation. */
export function homeOf(session: AuthSession): string {
  // A cashier opens on the register, like every point of sale.
  if (session.companyId !== null && session.role === 'cashier') return '/caja';
  return NAV.find((item) => item.href !== '/docs' && item.shows(session))?.href ?? '/cuenta';
}

export interface ShellPage {
  title: string;
  /** The page's entry in src/web/entries, without extension ("settings-integrations"). */
  entry: string;
  /** Initial data for the page's component. */
  data: unknown;
  status?: number;
}

export interface Viewer {
  session: AuthSession | null;
  memberships: MembershipSummary[];
  path: string;
}

function companyPart(viewer: Viewer & { session: AuthSession }): SafeHtml {
  const { session, memberships } = viewer;
  if (memberships.length > 1) {
    const options = memberships.map(
      (m) =>
        html`<option value="${m.companyId}"${m.companyId === session.companyId ? html` selected` : ''}>${m.companyName} (${ROLE_LABELS[m.role]})</option>`,
    );
    return html`<label class="visually-hidden" for="company-switch">Empresa</label><select id="company-switch" data-company-switch aria-label="Empresa">${options}</select>`;
  }
  if (session.companyName) return html`<span class="company">${session.companyName}</span>`;
  return html``;
}

function header(viewer: Viewer, assets: AssetCatalog): SafeHtml {
  const brand = html`<a class="brand" href="/"><img src="${assets.url('favicon.svg')}" alt="">Mostrador</a>`;
  const { session } = viewer;
  if (!session) return html`<header class="shell-header"><div class="shell-bar">${brand}</div></header>`;
  const signed = { ...viewer, session };
  const shown = NAV.filter((item) => item.shows(session));
  // The current section is the longest address the path is in (/superadmin/instagram/agent is the agent's, not the inbox's).
  const current = shown
    .filter((item) => viewer.path === item.href || viewer.path.startsWith(`${item.href}/`))
    .sort((a, b) => b.href.length - a.href.length)[0];
  const nav = shown.map(
    (item) => html`<a href="${item.href}"${item === current ? html` aria-current="page"` : ''}>${item.label}</a>`,
  );
  // On a phone the person, the company and the sections fold behind one "Menú" button (app.css).
  const toggle = html`<button type="button" class="secondary shell-menu-toggle" aria-expanded="false" aria-controls="shell-who shell-nav" data-menu-toggle>Menú${current ? html`<span class="shell-menu-current"> · ${current.label}</span>` : ''}</button>`;
  return html`<header class="shell-header"><div class="shell-bar">${brand}${toggle}
<div class="who" id="shell-who">${companyPart(signed)}<span class="muted" id="shell-user">${session.displayName ?? session.email}</span>
<button type="button" class="secondary" data-logout>Cerrar sesión</button></div></div>
<nav class="shell-nav" id="shell-nav" aria-label="Secciones">${nav}</nav></header>`;
}

export function renderShell(assets: AssetCatalog, page: ShellPage, viewer: Viewer): string {
  return html`<!doctype html>
<html lang="es-AR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${page.title} · Mostrador</title>
<link rel="icon" href="${assets.url('favicon.svg')}" type="image/svg+xml">
<link rel="stylesheet" href="${assets.url('app.css')}">
<script type="module" src="${assets.url(`${page.entry}.js`)}"></script></head>
<body>${header(viewer, assets)}
<main id="app"><noscript>Esta página necesita JavaScript activado.</noscript></main>
<script type="application/json" id="page-data">${jsonForScript(page.data)}</script>
</body></html>`.value;
}

/** What a person who opened an address in the browser reads when it cannot be shown, by error code. */
const ERROR_PAGES: Record<string, { title: string; text: string }> = {
  not_found: {
    title: 'Página no encontrada',
    text: 'No hay ninguna página en esta dirección. Revisá que esté bien escrita o volvé al inicio.',
  },
  bad_request: {
    title: 'La dirección no es válida',
    text: 'La dirección tiene un dato que no se puede leer (por ejemplo, una fecha mal escrita). Volvé a la página anterior o al inicio.',
  },
  unauthorized: { title: 'Tenés que iniciar sesión', text: 'Para ver esta página, iniciá sesión.' },
  forbidden: { title: 'Sin permiso', text: 'Tu usuario no tiene permiso para ver esta página.' },
  rate_limited: { title: 'Demasiados pedidos seguidos', text: 'Esperá un momento y volvé a intentar.' },
  service_unavailable: {
    title: 'El servicio no está disponible',
    text: 'Mostrador no puede atender en este momento. Probá de nuevo en unos minutos.',
  },
  internal: {
    title: 'Algo salió mal',
    text: 'No pudimos mostrar esta página por un error nuestro, que ya quedó registrado. Probá de nuevo en un momento.',
  },
};

/** The kind of error page of each status that has its own; other 5xx are `internal`, other 4xx `bad_request`. */
const ERROR_PAGE_OF_STATUS: Record<number, string> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  429: 'rate_limited',
  503: 'service_unavailable',
};

/** The error page's text for a code: its own, else the one of its kind (by status). */
function errorPageText(code: string, status: number) {
  const kind =
    code === 'page_not_found' ? 'not_found' : (ERROR_PAGE_OF_STATUS[status] ?? (status >= 500 ? 'internal' : 'bad_request'));
  return ERROR_PAGES[code] ?? ERROR_PAGES[kind]!;
}

/**
 * An error as a page, for a person who opened the address in the browser (the API answers the same
 * error as JSON): what happened in Spanish, chosen by the error's code, the request's id to quote
 * when asking for help, and a way back. No script: it shows even when the scripts cannot load.
 */
export function renderErrorPage(
  assets: AssetCatalog,
  error: { code: string; status: number },
  request: { id: string; path: string },
): string {
  const { title, text } = errorPageText(error.code, error.status);
  const login =
    error.status === 401
      ? html`<a class="button" href="/login?next=${encodeURIComponent(request.path)}">Iniciar sesión</a> `
      : '';
  return html`<!doctype html>
<html lang="es-AR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · Mostrador</title>
<link rel="icon" href="${assets.url('favicon.svg')}" type="image/svg+xml">
<link rel="stylesheet" href="${assets.url('app.css')}"></head>
<body>${header({ session: null, memberships: [], path: request.path }, assets)}
<main id="app"><div class="page-title"><h1>${title}</h1></div>
<section class="card" id="error-page" data-code="${error.code}"><p>${text}</p>
<p>${login}<a href="/">Ir al inicio</a></p>
<p class="muted">Si necesitás ayuda, mencioná este código: <code>${request.id}</code></p></section></main>
</body></html>`.value;
}

export type Shell = ReturnType<typeof createShell>;

/** Sends shell pages for the request's session (set by the guard of its surface, or none on public pages). */
export function createShell({ assets, auth }: { assets: AssetCatalog; auth: AuthService }) {
  async function viewerOf(request: FastifyRequest): Promise<Viewer> {
    const session = request.authSession;
    const memberships = session ? await auth.listMemberships(session.userId) : [];
    return { session, memberships, path: request.url.split('?')[0]! };
  }

  async function send(request: FastifyRequest, reply: FastifyReply, page: ShellPage) {
    return sendHtml(reply, renderShell(assets, page, await viewerOf(request)), { status: page.status ?? 200 });
  }

  /** A signed-in person on a page their role in this company does not open: why, and where to go. */
  async function refused(request: FastifyRequest, reply: FastifyReply) {
    const viewer = await viewerOf(request);
    const session = viewer.session!;
    return sendHtml(
      reply,
      renderShell(
        assets,
        {
          title: 'Sin permiso',
          entry: 'refused',
          data: {
            company: session.companyName,
            role: session.role,
            home: homeOf(session),
            admin_of: viewer.memberships.filter((m) => m.role === 'admin').map((m) => ({ id: m.companyId, name: m.companyName })),
          },
        },
        viewer,
      ),
      { status: 403 },
    );
  }

  return { send, refused, viewerOf };
}
