import { api, errorText } from './api.ts';

/**
 * The header of the app shell is rendered by the server; this wires its controls: the phone's
 * "Menú" button, the company switch (for people in several companies) and "Cerrar sesión".
 */
export function wireShell() {
  const toggle = document.querySelector<HTMLButtonElement>('[data-menu-toggle]');
  toggle?.addEventListener('click', () => {
    const open = toggle.closest('.shell-header')?.classList.toggle('menu-open') ?? false;
    toggle.setAttribute('aria-expanded', String(open));
  });
  const logout = document.querySelector<HTMLButtonElement>('[data-logout]');
  logout?.addEventListener('click', async () => {
    logout.disabled = true;
    try {
      await api('POST', '/api/auth/logout');
      // The register's offline copy of its page names the person: it goes with the session.
      if ('caches' in window) await caches.delete('mostrador-caja-v1').catch(() => false);
    } finally {
      location.assign('/login');
    }
  });
  const select = document.querySelector<HTMLSelectElement>('[data-company-switch]');
  select?.addEventListener('change', async () => {
    select.disabled = true;
    try {
      await api('POST', '/api/auth/company', { body: { company_id: Number(select.value) } });
      location.assign('/');
    } catch (err) {
      select.disabled = false;
      window.alert(errorText(err));
    }
  });
}
