import type { FastifyReply } from 'fastify';
import { formatDateTime, html, sendPage } from '../../http/page.ts';
import { formatCuit } from '../../lib/cuit.ts';
import type { CompanySummaryWire } from './superadmin.service.ts';

const SCRIPT = `
var form = document.getElementById('create-form');
var message = document.getElementById('create-message');
var result = document.getElementById('create-result');
form.addEventListener('submit', async function (e) {
  e.preventDefault();
  var button = form.querySelector('button');
  button.disabled = true;
  message.textContent = '';
  var body = { name: form.name.value };
  if (form.cuit.value.trim() !== '') body.cuit = form.cuit.value.trim();
  try {
    var res = await fetch('/api/superadmin/companies', {
      method: 'POST', credentials: 'same-origin',
      headers: { 'content-type': 'application/json' }, body: JSON.stringify(body)
    });
    var data = await res.json().catch(function () { return {}; });
    if (res.status === 201) {
      document.getElementById('new-name').textContent = data.company.name + ' (n.º ' + data.company.id + ')';
      document.getElementById('new-key').textContent = data.integration_key;
      document.getElementById('new-token').textContent = data.scanner_token;
      result.hidden = false;
      form.reset();
    } else if (res.status === 409) {
      message.textContent = 'Ya existe una empresa con ese CUIT.';
    } else if (res.status === 422) {
      message.textContent = 'Revisá los datos: ' + (data.details || []).map(function (d) {
        return d.path === 'cuit' || d.path === 'body.cuit' ? 'el CUIT no es válido' : 'el nombre debe tener entre 1 y 200 caracteres';
      }).join('; ') + '.';
    } else if (res.status === 401) {
      location.assign('/login?next=' + encodeURIComponent(location.pathname));
    } else {
      message.textContent = 'No se pudo crear la empresa (error ' + res.status + ').';
    }
  } catch (err) {
    message.textContent = 'No hay conexión con el servidor.';
  }
  button.disabled = false;
});
`;

export interface CompaniesPageData {
  email: string;
  companies: CompanySummaryWire[];
  total: number;
  q: string;
  offset: number;
  limit: number;
}

function countCell(value: number | null) {
  return value === null
    ? html`<td class="num muted" title="Todavía no se guardan eventos recibidos">—</td>`
    : html`<td class="num">${value.toLocaleString('es-AR')}</td>`;
}

function companyRows(companies: CompanySummaryWire[]) {
  if (companies.length === 0) return html`<tr><td colspan="6" class="muted">No hay empresas que coincidan.</td></tr>`;
  return companies.map(
    (c) => html`<tr data-company-id="${c.id}"><td>${c.name}</td><td>${c.cuit ? formatCuit(c.cuit) : '—'}</td>
<td>${formatDateTime(c.created_at)}</td><td class="num">${c.products_count.toLocaleString('es-AR')}</td>
${countCell(c.inbound_events_count)}<td class="num">${c.outbound_events_count.toLocaleString('es-AR')}</td></tr>`,
  );
}

function pager(data: CompaniesPageData) {
  const link = (offset: number, text: string) =>
    html`<a href="/superadmin/companies?${new URLSearchParams({ ...(data.q ? { q: data.q } : {}), offset: String(offset) }).toString()}">${text}</a>`;
  const from = data.total === 0 ? 0 : data.offset + 1;
  const to = Math.min(data.offset + data.limit, data.total);
  return html`<p class="row muted">Mostrando ${from}–${to} de ${data.total}
${data.offset > 0 ? link(Math.max(0, data.offset - data.limit), '← Anteriores') : ''}
${to < data.total ? link(data.offset + data.limit, 'Siguientes →') : ''}</p>`;
}

export function companiesPage(reply: FastifyReply, data: CompaniesPageData) {
  const body = html`<h1>Empresas</h1>
<section>
  <form method="get" action="/superadmin/companies" class="row">
    <input name="q" type="search" value="${data.q}" placeholder="Buscá por nombre o CUIT" aria-label="Buscar">
    <button type="submit" class="secondary">Buscar</button>
  </form>
  <table id="companies"><thead><tr><th>Nombre</th><th>CUIT</th><th>Alta</th><th class="num">Productos</th>
  <th class="num">Eventos recibidos</th><th class="num">Eventos enviados</th></tr></thead>
  <tbody>${companyRows(data.companies)}</tbody></table>
  ${pager(data)}
</section>
<section>
  <h2>Nueva empresa</h2>
  <form id="create-form">
    <label for="name">Nombre</label><input id="name" name="name" required maxlength="200">
    <label for="cuit">CUIT (opcional)</label><input id="cuit" name="cuit" placeholder="30-12345678-1" inputmode="numeric">
    <p id="create-message" class="error" role="alert"></p>
    <button type="submit">Crear empresa</button>
  </form>
  <div id="create-result" hidden>
    <p class="notice">Se creó <strong id="new-name"></strong>. Guardá estos datos ahora: el token del escáner no se vuelve a mostrar
    (se puede rotar). La clave de integración la ve después quien administre la empresa, en Configuración → Integraciones.</p>
    <p>Clave de integración: <span class="secret" id="new-key"></span> <button type="button" class="secondary" data-copy="new-key">Copiar</button></p>
    <p>Token del escáner: <span class="secret" id="new-token"></span> <button type="button" class="secondary" data-copy="new-token">Copiar</button></p>
    <p class="muted">Para darle acceso a alguien de la empresa, creá su usuario con el comando <code>user create</code>
    de la línea de comandos (rol <code>admin</code> o <code>cashier</code>). <a href="/superadmin/companies">Actualizar la lista</a></p>
  </div>
</section>`;
  return sendPage(reply, { title: 'Empresas', body, script: SCRIPT, userEmail: data.email });
}
