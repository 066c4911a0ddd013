import { html, jsonForScript, type SafeHtml } from '../../http/page.ts';
import type { EndpointWire } from './endpoints.service.ts';
import { OUTBOUND_EVENTS } from './webhook-events.ts';

export { WEBHOOKS_SCRIPT } from './webhooks.script.ts';

/**
 * The webhooks part of /settings/integrations (Spanish). The rows are drawn by WEBHOOKS_SCRIPT from
 * the JSON below and from /api/settings/integrations/webhooks, so there is one rendering path.
 */
export function webhooksSection(endpoints: EndpointWire[]): SafeHtml {
  const checkboxes = OUTBOUND_EVENTS.map(
    (event) =>
      html`<label class="row"><input type="checkbox" name="webhook-event" value="${event}"> <code>${event}</code></label>`,
  );
  return html`<section id="webhooks">
  <h2>Webhooks</h2>
  <p class="muted">Mostrador envía cada venta, pago, factura, movimiento de stock y cambio de producto a las direcciones que agregues, firmado con un secreto. <a href="/docs/webhooks">Cómo recibirlos y verificar la firma</a>.</p>
  <table><thead><tr><th>Dirección</th><th>Eventos</th><th>Estado</th><th>Acciones</th></tr></thead><tbody id="webhook-rows"></tbody></table>
  <p id="webhooks-empty" class="muted" hidden>Todavía no agregaste ningún webhook.</p>
  <p id="webhook-message" class="notice" role="status" hidden></p>
  <div id="webhook-secret" hidden>
    <p class="notice">Guardá este secreto ahora: no se vuelve a mostrar. Con él verificás la firma <code>x-signature</code> de cada envío.</p>
    <p class="row"><span class="secret" id="webhook-secret-value"></span> <button type="button" class="secondary" data-copy="webhook-secret-value">Copiar</button></p>
  </div>
  <h3>Agregar un webhook</h3>
  <form id="webhook-form">
    <label for="webhook-url">Dirección (URL)</label>
    <input id="webhook-url" type="url" required maxlength="2048" placeholder="https://tu-sistema.example.com/webhooks/mostrador">
    <label for="webhook-description">Descripción (opcional)</label>
    <input id="webhook-description" maxlength="500">
    <fieldset><legend>Eventos</legend>${checkboxes}<p class="muted">Si no marcás ninguno, recibe todos (también los que se agreguen más adelante).</p></fieldset>
    <label for="webhook-headers">Encabezados extra (opcional, uno por línea: <code>Nombre: valor</code>)</label>
    <textarea id="webhook-headers" rows="3" cols="60" placeholder="Authorization: Bearer …"></textarea>
    <label for="webhook-own-secret">Secreto propio (opcional; por ejemplo la clave de integración de otro Mostrador)</label>
    <input id="webhook-own-secret" autocomplete="off" maxlength="256">
    <p><button type="submit">Agregar webhook</button></p>
    <p id="webhook-form-error" class="error" role="alert" hidden></p>
  </form>
</section>
<section id="webhook-deliveries" hidden>
  <h2>Entregas a <span id="deliveries-url"></span></h2>
  <div class="row">
    <label for="delivery-status">Mostrar</label>
    <select id="delivery-status"><option value="">todas</option><option value="failed">fallidas</option><option value="pending">pendientes</option><option value="delivered">entregadas</option></select>
  </div>
  <table><thead><tr><th>Fecha del evento</th><th>Evento</th><th>Estado</th><th>Intentos</th><th>Última respuesta</th><th></th></tr></thead>
  <tbody id="delivery-rows"></tbody></table>
  <p class="row"><button type="button" class="secondary" id="deliveries-more" hidden>Ver más</button></p>
  <div class="row">
    <label for="redeliver-event-id">Reenviar un evento por su id</label>
    <input id="redeliver-event-id" maxlength="64" placeholder="x-event-id, por ejemplo 3f8a6f4e-…">
    <button type="button" class="secondary" id="redeliver-by-id">Reenviar</button>
  </div>
  <div class="row">
    <label for="retry-since">Reintentar todas las fallidas desde</label>
    <input id="retry-since" type="datetime-local">
    <button type="button" class="secondary" id="retry-failed">Reintentar</button>
  </div>
  <div id="delivery-detail" hidden>
    <h3>Intentos de <code id="detail-event"></code></h3>
    <table><thead><tr><th>#</th><th>Cuándo</th><th>Resultado</th><th>Demora</th><th>Respuesta o error</th></tr></thead><tbody id="attempt-rows"></tbody></table>
    <h3>Cuerpo enviado</h3><pre id="detail-payload"></pre>
  </div>
</section>
<script type="application/json" id="webhooks-data">${jsonForScript({ endpoints })}</script>`;
}
