import type { FastifyReply } from 'fastify';
import { formatDateTime, html, jsonForScript, type SafeHtml, sendPage } from '../../http/page.ts';
import type { AuditEntryWire } from '../audit/audit.repo.ts';
import type { AuthSession } from '../auth/auth.service.ts';
import type { MembershipSummary } from '../auth/sessions.repo.ts';
import type { SettingsService } from './settings.service.ts';
import type { EndpointWire } from '../webhooks/endpoints.service.ts';
import { WEBHOOKS_SCRIPT, webhooksSection } from '../webhooks/webhooks.page.ts';
import { SETTINGS_SCRIPT } from './integrations.script.ts';

export const AUDIT_LABELS: Record<string, string> = {
  'integration_key.revealed': 'Clave de integración mostrada',
  'integration_key.rotated': 'Clave de integración rotada',
  'scanner_token.rotated': 'Token del escáner rotado',
  'company.created': 'Empresa creada',
  'auth.company_selected': 'Empresa elegida en una sesión',
  'webhook.created': 'Webhook agregado',
  'webhook.updated': 'Webhook modificado',
  'webhook.removed': 'Webhook eliminado',
  'webhook.secret_rotated': 'Secreto de un webhook rotado',
};
const ROLE_LABELS: Record<string, string> = { admin: 'administración', cashier: 'caja' };

interface PageContext {
  session: AuthSession;
  memberships: MembershipSummary[];
}

function companySwitch({ session, memberships }: PageContext): SafeHtml {
  if (memberships.length < 2) return html``;
  const options = memberships.map(
    (m) =>
      html`<option value="${m.companyId}" ${m.companyId === session.companyId ? html`selected` : ''}>${m.companyName} (${ROLE_LABELS[m.role]})</option>`,
  );
  return html`<label for="company-switch">Empresa</label><select id="company-switch">${options}</select>`;
}

/** What a cashier (or a user without a company) sees instead of the settings. */
export function notAllowedPage(reply: FastifyReply, ctx: PageContext) {
  const where = ctx.session.companyName
    ? html`<p>En <strong>${ctx.session.companyName}</strong> tu rol es ${ROLE_LABELS[ctx.session.role ?? ''] ?? 'sin rol'}: la configuración de integraciones la ve solo quien administra la empresa.</p>`
    : html`<p>Tu usuario no pertenece a ninguna empresa todavía. Pedile acceso a quien administra Mostrador.</p>`;
  const body = html`<h1>Configuración</h1><section>${where}${companySwitch(ctx)}</section>`;
  return sendPage(reply, { title: 'Sin permiso', body, script: SETTINGS_SCRIPT, userEmail: ctx.session.email }, 403);
}

function auditRows(entries: AuditEntryWire[]): SafeHtml | SafeHtml[] {
  if (entries.length === 0) return html`<tr><td colspan="4" class="muted">Todavía no hay actividad registrada.</td></tr>`;
  return entries.map(
    (e) =>
      html`<tr><td>${formatDateTime(e.at)}</td><td>${AUDIT_LABELS[e.action] ?? e.action}</td><td>${e.actor_email ?? 'línea de comandos'}</td><td>${e.ip ?? '—'}</td></tr>`,
  );
}

export interface IntegrationsPageData extends PageContext {
  overview: Awaited<ReturnType<SettingsService['overview']>>;
  audit: AuditEntryWire[];
  webhooks: EndpointWire[];
}

export function integrationsPage(reply: FastifyReply, data: IntegrationsPageData) {
  const { overview } = data;
  const key = overview.integration_key;
  const body = html`<h1>Integraciones · ${overview.company.name}</h1>
<section>${companySwitch(data)}<p id="action-message" class="notice" role="status" hidden></p></section>
<section>
  <h2>Clave de integración</h2>
  <p class="muted">Tus sistemas la mandan como <code>Authorization: Bearer …</code> a <code>${overview.endpoints.integration}</code> y firman el cuerpo con ella (<code>x-signature</code>).</p>
  <p class="row"><span class="secret" id="integration-key">${key ? key.masked : 'sin clave activa'}</span>
    <button type="button" class="secondary" id="reveal-key">Mostrar</button>
    <button type="button" class="secondary" id="copy-key" data-copy="integration-key" hidden>Copiar</button>
    <button type="button" class="danger" id="rotate-key">Rotar clave</button></p>
  <p class="muted">${key?.created_at ? html`Vigente desde el ${formatDateTime(key.created_at)}.` : ''} Al rotarla, la clave anterior deja de funcionar en el acto.</p>
</section>
<section id="examples" hidden>
  <h2>Ejemplos listos para copiar</h2>
  <p class="muted">Usan tu clave real. El <code>x-sent-at</code> se calcula al ejecutar, así que el ejemplo sirve en cualquier momento.</p>
  <h3>Enviar un evento firmado</h3><pre id="ex-curl"></pre><button type="button" class="secondary" data-copy="ex-curl">Copiar</button>
  <h3>Consultar los eventos recibidos</h3><pre id="ex-poll"></pre><button type="button" class="secondary" data-copy="ex-poll">Copiar</button>
  <h3>Firmar cualquier cuerpo desde la terminal</h3><pre id="ex-script"></pre><button type="button" class="secondary" data-copy="ex-script">Copiar</button>
</section>
<section>
  <h2>Token del escáner de precios</h2>
  <p class="muted">${overview.scanner_token ? html`Vigente desde el ${formatDateTime(overview.scanner_token.created_at)}.` : 'No hay token activo.'}
  Solo se muestra una vez, al crearlo: si no lo tenés guardado, rotalo y cargá el nuevo en tus escáneres.</p>
  <button type="button" class="danger" id="rotate-token">Rotar token del escáner</button>
  <div id="token-result" hidden>
    <p class="notice">Guardalo ahora: no lo vas a poder ver de nuevo.</p>
    <p>Token: <span class="secret" id="scanner-token"></span> <button type="button" class="secondary" data-copy="scanner-token">Copiar</button></p>
    <p>Pantalla de consulta de precios: <span class="secret" id="kiosk-url"></span> <button type="button" class="secondary" data-copy="kiosk-url">Copiar</button></p>
    <pre id="ex-scanner"></pre><button type="button" class="secondary" data-copy="ex-scanner">Copiar</button>
  </div>
</section>
${webhooksSection(data.webhooks)}
<section>
  <h2>Actividad reciente</h2>
  <table><thead><tr><th>Cuándo</th><th>Qué</th><th>Quién</th><th>Desde</th></tr></thead>
  <tbody id="audit-rows">${auditRows(data.audit)}</tbody></table>
</section>
<script type="application/json" id="audit-labels">${jsonForScript(AUDIT_LABELS)}</script>`;
  return sendPage(reply, {
    title: 'Integraciones',
    body,
    script: SETTINGS_SCRIPT + WEBHOOKS_SCRIPT,
    userEmail: data.session.email,
  });
}
