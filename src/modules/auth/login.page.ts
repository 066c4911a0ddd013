import type { FastifyReply } from 'fastify';
import { html, sendPage } from '../../http/page.ts';

const SCRIPT = `
var form = document.getElementById('login-form');
var message = document.getElementById('login-message');
form.addEventListener('submit', async function (e) {
  e.preventDefault();
  var button = form.querySelector('button');
  button.disabled = true;
  message.textContent = '';
  try {
    var res = await fetch('/api/auth/login', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: form.email.value, password: form.password.value })
    });
    if (res.ok) { location.assign(form.getAttribute('data-next')); return; }
    if (res.status === 429) {
      var wait = Number(res.headers.get('retry-after') || '60');
      message.textContent = 'Demasiados intentos. Probá de nuevo en ' + Math.max(1, Math.ceil(wait / 60)) + ' min.';
    } else if (res.status === 401 || res.status === 422) {
      message.textContent = 'El email o la contraseña no son correctos.';
    } else {
      message.textContent = 'No pudimos iniciar la sesión. Probá de nuevo en un rato.';
    }
  } catch (err) {
    message.textContent = 'No hay conexión con el servidor. Revisá tu red y probá de nuevo.';
  }
  button.disabled = false;
  form.password.value = '';
  form.password.focus();
});
`;

/** The login form; after logging in the browser goes to `next` (already checked to be a path of this site). */
export function loginPage(reply: FastifyReply, next: string) {
  const body = html`<section>
  <h1>Ingresá a Mostrador</h1>
  <form id="login-form" data-next="${next}" autocomplete="on">
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required autofocus>
    <label for="password">Contraseña</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required>
    <p id="login-message" class="error" role="alert"></p>
    <button type="submit">Ingresar</button>
  </form>
  <p class="muted">¿Olvidaste tu contraseña? Pedile a quien administra Mostrador en tu empresa que te asigne una nueva.</p>
</section>`;
  return sendPage(reply, { title: 'Ingresar', body, script: SCRIPT });
}
