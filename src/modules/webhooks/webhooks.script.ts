// Browser code of the webhooks section of /settings/integrations (plain ES2017, no build step).
// Everything that comes from the server goes into textContent, never into markup.
export const WEBHOOKS_SCRIPT = `
(function () {
  if (!document.getElementById('webhooks')) return;
  var API = '/api/settings/integrations/webhooks';
  var DISABLED = { manual: 'Desactivado a mano', gone: 'Desactivado: respondió 410 Gone', failing: 'Desactivado: 5 días con fallas' };
  var STATUS = { pending: 'Pendiente', delivered: 'Entregado', failed: 'Falló' };
  var state = { endpoints: JSON.parse(el('webhooks-data').textContent).endpoints, selected: null, before: null };

  function el(id) { return document.getElementById(id); }
  function cell(tr, text) { var td = document.createElement('td'); td.textContent = text; tr.appendChild(td); return td; }
  function when(iso) {
    return new Intl.DateTimeFormat('es-AR', { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZone: 'America/Argentina/Buenos_Aires' }).format(new Date(iso));
  }
  function tell(text) { var m = el('webhook-message'); m.textContent = text; m.hidden = false; }
  function explain(body, status) {
    if (body && body.details && body.details.length) return body.details.map(function (d) { return d.path + ': ' + d.message; }).join('; ');
    return (body && body.error) || ('error ' + status);
  }
  async function call(method, url, body) {
    var init = { method: method, credentials: 'same-origin' };
    if (body !== undefined) { init.headers = { 'content-type': 'application/json' }; init.body = JSON.stringify(body); }
    var res = await fetch(url, init);
    if (res.status === 401) { location.assign('/login?next=' + encodeURIComponent(location.pathname)); throw new Error('session'); }
    var data = await res.json().catch(function () { return null; });
    if (!res.ok) { var err = new Error(explain(data, res.status)); err.status = res.status; throw err; }
    return data;
  }
  function button(label, action, id, kind) {
    var b = document.createElement('button');
    b.type = 'button'; b.className = kind || 'secondary'; b.textContent = label;
    b.setAttribute('data-webhook-action', action); b.setAttribute('data-id', id);
    return b;
  }
  function showSecret(secret) { el('webhook-secret-value').textContent = secret; el('webhook-secret').hidden = false; }

  function drawEndpoints() {
    var tbody = el('webhook-rows');
    tbody.textContent = '';
    el('webhooks-empty').hidden = state.endpoints.length > 0;
    state.endpoints.forEach(function (e) {
      var tr = document.createElement('tr');
      tr.setAttribute('data-endpoint-id', e.id);
      var where = cell(tr, e.url);
      if (e.description) { var small = document.createElement('div'); small.className = 'muted'; small.textContent = e.description; where.appendChild(small); }
      cell(tr, e.events ? e.events.join(', ') : 'todos');
      var status = e.enabled ? (e.failing_since ? 'Activo, con fallas desde ' + when(e.failing_since) : 'Activo') : DISABLED[e.disabled_reason] || 'Desactivado';
      if (e.previous_secret_expires_at) status += ' · secreto anterior válido hasta ' + when(e.previous_secret_expires_at);
      cell(tr, status).className = e.enabled ? '' : 'error';
      var actions = cell(tr, '');
      actions.className = 'row';
      actions.appendChild(button('Entregas', 'deliveries', e.id));
      actions.appendChild(button('Enviar evento de prueba', 'test', e.id));
      actions.appendChild(button('Rotar secreto', 'rotate', e.id));
      actions.appendChild(e.enabled ? button('Desactivar', 'disable', e.id) : button('Activar', 'enable', e.id));
      actions.appendChild(button('Eliminar', 'remove', e.id, 'danger'));
      tbody.appendChild(tr);
    });
  }
  async function reloadEndpoints() { state.endpoints = (await call('GET', API)).endpoints; drawEndpoints(); }

  function deliveryRow(d) {
    var tr = document.createElement('tr');
    tr.setAttribute('data-delivery-id', d.id);
    cell(tr, when(d.event_created_at));
    cell(tr, d.event);
    var status = STATUS[d.status] || d.status;
    if (d.status === 'pending' && d.next_attempt_at) status += d.in_flight ? ' (enviando)' : ' (próximo intento ' + when(d.next_attempt_at) + ')';
    cell(tr, status).className = d.status === 'failed' ? 'error' : d.status === 'delivered' ? 'ok' : '';
    cell(tr, String(d.attempts)).className = 'num';
    cell(tr, d.last_error || (d.last_status_code ? 'HTTP ' + d.last_status_code : '—'));
    var actions = cell(tr, '');
    actions.className = 'row';
    actions.appendChild(button('Intentos', 'attempts', d.id));
    if (d.kind === 'event') {
      var again = button('Reenviar', 'redeliver', d.id);
      again.setAttribute('data-event-id', d.event_id);
      actions.appendChild(again);
    }
    return tr;
  }
  async function loadDeliveries(more) {
    var status = el('delivery-status').value;
    var url = API + '/' + state.selected.id + '/deliveries?limit=50' + (status ? '&status=' + status : '') + (more && state.before ? '&before=' + encodeURIComponent(state.before) : '');
    var page = await call('GET', url);
    var tbody = el('delivery-rows');
    if (!more) tbody.textContent = '';
    page.deliveries.forEach(function (d) { if (!tbody.querySelector('[data-delivery-id="' + d.id + '"]')) tbody.appendChild(deliveryRow(d)); });
    if (!tbody.children.length) { var tr = document.createElement('tr'); cell(tr, 'No hay entregas para mostrar.').colSpan = 6; tbody.appendChild(tr); }
    state.before = page.next_before;
    el('deliveries-more').hidden = !page.next_before;
  }
  async function showAttempts(deliveryId) {
    var found = await call('GET', API + '/' + state.selected.id + '/deliveries/' + deliveryId);
    el('detail-event').textContent = found.delivery.event;
    el('detail-payload').textContent = JSON.stringify(found.payload, null, 2);
    var tbody = el('attempt-rows');
    tbody.textContent = '';
    found.attempts.forEach(function (a) {
      var tr = document.createElement('tr');
      cell(tr, String(a.attempt)).className = 'num';
      cell(tr, when(a.started_at));
      cell(tr, a.outcome === 'delivered' ? 'Entregado' : 'Falló').className = a.outcome === 'delivered' ? 'ok' : 'error';
      cell(tr, a.duration_ms === null ? '—' : a.duration_ms + ' ms').className = 'num';
      cell(tr, (a.status_code ? 'HTTP ' + a.status_code + ' ' : '') + (a.error || a.response_body || ''));
      tbody.appendChild(tr);
    });
    el('delivery-detail').hidden = false;
  }

  var actions = {
    deliveries: async function (id) {
      state.selected = state.endpoints.filter(function (e) { return e.id === id; })[0];
      el('deliveries-url').textContent = state.selected.url;
      el('webhook-deliveries').hidden = false;
      el('delivery-detail').hidden = true;
      await loadDeliveries(false);
    },
    test: async function (id) {
      tell('Enviando un evento de prueba…');
      var a = (await call('POST', API + '/' + id + '/test')).attempt;
      tell(a.delivered
        ? 'Evento de prueba entregado: HTTP ' + a.status_code + ' en ' + a.duration_ms + ' ms.'
        : 'El evento de prueba no se entregó: ' + a.error + (a.response_body ? ' · respuesta: ' + a.response_body : '') + '.');
    },
    rotate: async function (id) {
      if (!confirm('Se crea un secreto nuevo. El actual sigue firmando 24 horas más (los envíos llevan las dos firmas) para que actualices tu sistema. ¿Seguís?')) return;
      showSecret((await call('POST', API + '/' + id + '/rotate-secret', {})).secret);
      tell('Secreto rotado: actualizalo en tu sistema antes de 24 horas.');
      await reloadEndpoints();
    },
    disable: async function (id) {
      await call('PATCH', API + '/' + id, { enabled: false });
      tell('Webhook desactivado: lo pendiente quedó como fallido y no se envía nada nuevo.');
      await reloadEndpoints();
    },
    enable: async function (id) {
      await call('PATCH', API + '/' + id, { enabled: true });
      tell('Webhook activado. Si querés recuperar lo que falló, usá «Reintentar todas las fallidas desde» en sus entregas.');
      await reloadEndpoints();
    },
    remove: async function (id) {
      if (!confirm('Se elimina el webhook con todo su registro de entregas. ¿Seguís?')) return;
      await call('DELETE', API + '/' + id);
      if (state.selected && state.selected.id === id) el('webhook-deliveries').hidden = true;
      tell('Webhook eliminado.');
      await reloadEndpoints();
    },
    attempts: showAttempts,
    redeliver: async function (deliveryId, target) {
      await call('POST', API + '/' + state.selected.id + '/redeliver', { event_id: target.getAttribute('data-event-id') });
      tell('Evento puesto otra vez en cola, con el mismo x-idempotency-key.');
      await loadDeliveries(false);
    },
  };

  document.addEventListener('click', async function (e) {
    var target = e.target.closest && e.target.closest('[data-webhook-action]');
    if (!target) return;
    target.disabled = true;
    try { await actions[target.getAttribute('data-webhook-action')](target.getAttribute('data-id'), target); }
    catch (err) { if (err.message !== 'session') tell('No se pudo completar la acción: ' + err.message); }
    finally { target.disabled = false; }
  });

  el('webhook-form').addEventListener('submit', async function (e) {
    e.preventDefault();
    var error = el('webhook-form-error');
    error.hidden = true;
    var body = { url: el('webhook-url').value.trim() };
    var description = el('webhook-description').value.trim();
    if (description) body.description = description;
    var events = Array.prototype.map.call(document.querySelectorAll('input[name="webhook-event"]:checked'), function (c) { return c.value; });
    if (events.length) body.events = events;
    var headers = {};
    var bad = el('webhook-headers').value.split('\\n').filter(function (line) { return line.trim(); }).filter(function (line) {
      var colon = line.indexOf(':');
      if (colon < 1) return true;
      headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
      return false;
    });
    if (bad.length) { error.textContent = 'Cada encabezado va en su línea como «Nombre: valor» (revisá: ' + bad[0] + ').'; error.hidden = false; return; }
    if (Object.keys(headers).length) body.headers = headers;
    var own = el('webhook-own-secret').value;
    if (own) body.secret = own;
    try {
      var created = await call('POST', API, body);
      showSecret(created.secret);
      tell('Webhook agregado. Guardá el secreto de firma que ves arriba.');
      e.target.reset();
      await reloadEndpoints();
    } catch (err) {
      if (err.message === 'session') return;
      error.textContent = 'No se pudo agregar: ' + err.message;
      error.hidden = false;
    }
  });

  el('delivery-status').addEventListener('change', function () { loadDeliveries(false).catch(function (err) { tell(err.message); }); });
  el('deliveries-more').addEventListener('click', function () { loadDeliveries(true).catch(function (err) { tell(err.message); }); });
  el('redeliver-by-id').addEventListener('click', async function () {
    var id = el('redeliver-event-id').value.trim();
    if (!id) { tell('Escribí el id del evento (el x-event-id que recibiste).'); return; }
    try {
      await call('POST', API + '/' + state.selected.id + '/redeliver', { event_id: id });
      tell('Evento puesto otra vez en cola, con el mismo x-idempotency-key.');
      el('redeliver-event-id').value = '';
      await loadDeliveries(false);
    } catch (err) { tell('No se pudo reenviar: ' + err.message); }
  });
  el('retry-failed').addEventListener('click', async function () {
    var value = el('retry-since').value;
    if (!value) { tell('Elegí desde qué fecha y hora reintentar.'); return; }
    try {
      var result = await call('POST', API + '/' + state.selected.id + '/retry-failed', { since: new Date(value).toISOString() });
      tell(result.retried === 1 ? 'Se reintenta 1 entrega fallida.' : 'Se reintentan ' + result.retried + ' entregas fallidas.');
      await loadDeliveries(false);
    } catch (err) { tell('No se pudo reintentar: ' + err.message); }
  });

  drawEndpoints();
})();
`;
