import type { App } from '../../http/app.types.ts';

/**
 * The register's service worker (/caja-sw.js, scope /caja): it keeps the /caja page and its
 * content-hashed assets in the browser, so a register reloaded without connection still opens and
 * keeps selling (the catalogue and the queued sales live in IndexedDB). The page is network-first
 * (always the server's when it answers), the assets cache-first (their names change with them).
 * Public: it holds no data, only the code that caches what the signed-in page already has.
 */
export const REGISTER_WORKER = `'use strict';
const CACHE = 'mostrador-caja-v1';
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname === '/caja') {
    event.respondWith(
      fetch(request)
        .then((response) => {
          if (response.ok && !response.redirected) {
            const copy = response.clone();
            caches.open(CACHE).then((cache) => cache.put('/caja', copy));
          }
          return response;
        })
        .catch(() => caches.match('/caja').then((hit) => hit || Response.error())),
    );
  } else if (url.pathname.startsWith('/assets/')) {
    event.respondWith(
      caches.match(request).then(
        (hit) =>
          hit ||
          fetch(request).then((response) => {
            if (response.ok) {
              const copy = response.clone();
              caches.open(CACHE).then((cache) => cache.put(request, copy));
            }
            return response;
          }),
      ),
    );
  }
});
`;

export function registerRegisterWorker(app: App) {
  app.get('/caja-sw.js', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('service-worker-allowed', '/caja')
      .send(REGISTER_WORKER),
  );
}
