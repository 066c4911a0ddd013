// Browser code of the settings pages (plain ES2017, no build step). Secrets only ever go into
// textContent, never into markup.
export const SETTINGS_SCRIPT = `
function $(id) { return document.getElementById(id); }
function say(text) { var m = $('action-message'); if (m) { m.textContent = text; m.hidden = false; } }
async function post(url, body) {
  var init = { method: 'POST', credentials: 'same-origin' };
  if (body) { init.headers = { 'content-type': 'application/json' }; init.body = JSON.stringify(body); }
  var res = await fetch(url, init);
  if (res.status === 401) { location.assign('/login?next=' + encodeURIComponent(location.pathname)); throw new Error('session'); }
  if (!res.ok) { say('No se pudo completar la acción (error ' + res.status + ').'); throw new Error('status ' + res.status); }
  return res.json();
}
function showKey(data) {
  $('integration-key').textContent = data.integration_key;
  $('copy-key').hidden = false;
  $('ex-curl').textContent = data.examples.curl_signed;
  $('ex-poll').textContent = data.examples.curl_poll;
  $('ex-script').textContent = data.examples.shell_signing;
  $('examples').hidden = false;
}
function fmt(iso) {
  return new Intl.DateTimeFormat('es-AR', { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'America/Argentina/Buenos_Aires' }).format(new Date(iso));
}
async function refreshAudit() {
  var labels = JSON.parse($('audit-labels').textContent);
  var res = await fetch('/api/settings/audit?limit=20', { credentials: 'same-origin' });
  if (!res.ok) return;
  var tbody = $('audit-rows');
  tbody.textContent = '';
  (await res.json()).entries.forEach(function (e) {
    var tr = document.createElement('tr');
    [fmt(e.at), labels[e.action] || e.action, e.actor_email || 'línea de comandos', e.ip || '—'].forEach(function (v) {
      var td = document.createElement('td'); td.textContent = v; tr.appendChild(td);
    });
    tbody.appendChild(tr);
  });
}
if ($('reveal-key')) $('reveal-key').addEventListener('click', async function () {
  showKey(await post('/api/settings/integrations/key/reveal'));
  refreshAudit();
});
if ($('rotate-key')) $('rotate-key').addEventListener('click', async function () {
  if (!confirm('La clave actual deja de funcionar en el acto y tus integraciones van a necesitar la nueva. ¿Seguís?')) return;
  showKey(await post('/api/settings/integrations/key/rotate'));
  say('Listo: la clave nueva ya está vigente. Actualizala en tus integraciones.');
  refreshAudit();
});
if ($('rotate-token')) $('rotate-token').addEventListener('click', async function () {
  if (!confirm('El token actual deja de funcionar en el acto en todos tus escáneres. ¿Seguís?')) return;
  var data = await post('/api/settings/integrations/scanner-token/rotate');
  $('scanner-token').textContent = data.scanner_token;
  $('kiosk-url').textContent = data.examples.kiosk_url;
  $('ex-scanner').textContent = data.examples.curl_lookup;
  $('token-result').hidden = false;
  refreshAudit();
});
if ($('company-switch')) $('company-switch').addEventListener('change', async function (e) {
  await post('/api/auth/company', { company_id: Number(e.target.value) });
  location.reload();
});
`;
