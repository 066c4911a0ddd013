import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { ScaleLabelLayout } from '../../../modules/register/scale.ts';
import { Catalog } from './catalog.ts';
import type { SaleAction } from './sale-state.ts';
import { type CachedCatalog, isShift, type RegisterStore } from './store.ts';
import { type FlushResult, flushQueue } from './sync.ts';

/**
 * The register's link with the server: the catalogue (cached in IndexedDB, refreshed with its
 * ETag every minute), the queue of sales made without connection (sent every 5 s and when the
 * connection comes back) and whether the server is reachable.
 */
export function useRegisterLink(
  store: RegisterStore,
  scaleLabel: ScaleLabelLayout | null,
  dispatch: (a: SaleAction) => void,
  onShifts?: (shifts: FlushResult['shifts']) => void,
) {
  const shiftsRef = useRef(onShifts);
  shiftsRef.current = onShifts;
  const [catalog, setCatalog] = useState<Catalog | null>(null);
  const [catalogAt, setCatalogAt] = useState<string | null>(null);
  const [offline, setOffline] = useState(!navigator.onLine);
  const [pending, setPending] = useState(0);
  const [failed, setFailed] = useState<{ key: string; message: string }[]>([]);

  const refreshCatalog = useCallback(async () => {
    const cached = await store.getCatalog().catch(() => null);
    if (cached && !catalog) {
      setCatalog(new Catalog(cached.products, scaleLabel));
      setCatalogAt(cached.at);
    }
    try {
      const res = await fetch('/api/v1/register/catalog', {
        credentials: 'same-origin',
        headers: cached ? { 'if-none-match': cached.etag } : {},
      });
      if (res.status === 304 || !res.ok) return;
      const data = (await res.json()) as CachedCatalog;
      await store.putCatalog({ etag: data.etag, at: data.at, products: data.products }).catch(() => {});
      setCatalog(new Catalog(data.products, scaleLabel));
      setCatalogAt(data.at);
    } catch {
      setOffline(true);
    }
  }, [store, catalog, scaleLabel]);

  const refreshQueue = useCallback(async () => {
    const queued = await store.queuedAll();
    setPending(queued.filter((q) => !q.error && !isShift(q)).length);
    setFailed(queued.filter((q) => q.error).map((q) => ({ key: q.key, message: q.error! })));
  }, [store]);

  const sync = useCallback(async () => {
    const result = await flushQueue(store);
    if (result.shifts.length > 0) shiftsRef.current?.(result.shifts);
    if (result.sent.length > 0 || result.failed.length > 0 || result.shifts.length > 0) {
      setOffline(result.stopped);
      for (const sent of result.sent) dispatch({ type: 'ticket_sent', key: sent.key, sale: sent.sale });
    } else if (result.stopped) {
      setOffline(true);
    } else if (navigator.onLine) {
      setOffline(false);
    }
    await refreshQueue();
    return result;
  }, [store, refreshQueue, dispatch]);

  useEffect(() => {
    void keepShellOffline();
    void refreshCatalog();
    void sync();
    const online = () => {
      setOffline(false);
      void sync();
      void refreshCatalog();
    };
    const offlineEvent = () => setOffline(true);
    window.addEventListener('online', online);
    window.addEventListener('offline', offlineEvent);
    const timer = setInterval(() => void sync(), 5000);
    const catalogTimer = setInterval(() => void refreshCatalog(), 60_000);
    return () => {
      window.removeEventListener('online', online);
      window.removeEventListener('offline', offlineEvent);
      clearInterval(timer);
      clearInterval(catalogTimer);
    };
  }, []);

  return { catalog, catalogAt, offline, setOffline, pending, failed, sync, refreshQueue };
}

/**
 * Installs the register's service worker and stores this page and its assets, so the register
 * opens without connection. `fresh`: store the page again (its data changed: a session opened).
 */
export async function keepShellOffline(fresh = false) {
  if (!('serviceWorker' in navigator) || !('caches' in window)) return;
  try {
    await navigator.serviceWorker.register('/caja-sw.js', { scope: '/caja' });
    const cache = await caches.open('mostrador-caja-v1');
    const assets = [...document.querySelectorAll<HTMLScriptElement | HTMLLinkElement>('script[src], link[href]')]
      .map((node) => ('src' in node ? node.src : node.href))
      .filter((url) => new URL(url).pathname.startsWith('/assets/'));
    const missing = [];
    for (const url of assets) if (!(await cache.match(url))) missing.push(url);
    await cache.addAll(missing);
    if (fresh || !(await cache.match('/caja'))) {
      const page = await fetch('/caja', { credentials: 'same-origin' });
      if (page.ok && !page.redirected) await cache.put('/caja', page);
    }
  } catch {
    // Without a worker the register still sells offline; it only cannot be reloaded then.
  }
}
