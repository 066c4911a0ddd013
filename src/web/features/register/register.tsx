import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { formatArs, formatQuantity, fromMilli, lineTotalCents, parseCents } from '../../../lib/money.ts';
import type { ScaleLabelLayout } from '../../../modules/register/scale.ts';
import { ApiError, api, errorText } from '../../ui/api.ts';
import { useConfirm } from '../../ui/dialog.tsx';
import { Notice, useNotice } from '../../ui/notice.tsx';
import { Catalog, type Product } from './catalog.ts';
import { CloseSession, type SessionReport } from './close.tsx';
import { type CachedCatalog, RegisterStore } from './store.ts';
import { flushQueue, isNetworkError, postSale } from './sync.ts';
import { Ticket, type TicketData } from './ticket.tsx';

export interface RegisterState {
  company: { name: string; cuit: string | null };
  boxes: { id: number; name: string; deposit_id: number | null; open_session_id: number | null }[];
  scale_label: ScaleLabelLayout | null;
  can_change_prices: boolean;
}

export interface RegisterUser {
  email: string;
  name: string | null;
  role: 'admin' | 'cashier' | null;
}

export interface Line {
  uid: number;
  product: Product;
  qtyMilli: number;
  priceCents: number;
  subtotalCents: number;
  /** The scale label the line came from (the server reads product and quantity from it). */
  scaleLabel: string | null;
  /** A price label: the subtotal is the printed price. */
  priceLabel: boolean;
}

export const METHODS: { id: string; label: string }[] = [
  { id: 'efectivo', label: 'Efectivo' },
  { id: 'debito', label: 'Débito' },
  { id: 'credito', label: 'Crédito' },
  { id: 'transferencia', label: 'Transferencia' },
  { id: 'qr', label: 'QR' },
  { id: 'cuenta_corriente', label: 'Cuenta corriente' },
];
export const methodLabel = (id: string) => METHODS.find((m) => m.id === id)?.label ?? id;

/** A quantity typed before `*` ("3*779…", "0,5*779…"), in thousandths. */
function parseQuantity(text: string): number | null {
  const t = text.replace(',', '.');
  if (!/^\d+(\.\d{1,3})?$/.test(t)) return null;
  const milli = Math.round(Number(t) * 1000);
  return milli > 0 ? milli : null;
}

const formatQty = (milli: number, unit: string) => formatQuantity(fromMilli(milli), unit);

interface Payment {
  method: string;
  cents: number;
  reference: string;
}

let uid = 0;

export function Register({ initial, user }: { initial: RegisterState; user: RegisterUser }) {
  const [state, setState] = useState(initial);
  const storedBox = Number(localStorage.getItem('caja:box'));
  const [boxId, setBoxId] = useState<number | null>(
    initial.boxes.find((b) => b.id === storedBox)?.id ?? initial.boxes[0]?.id ?? null,
  );
  const box = state.boxes.find((b) => b.id === boxId) ?? null;
  const sessionId = box?.open_session_id ?? null;
  const companyKey = useMemo(() => fold(initial.company.name), [initial.company.name]);
  const store = useMemo(() => new RegisterStore(companyKey), [companyKey]);

  const [catalog, setCatalog] = useState<Catalog | null>(null);
  const [catalogAt, setCatalogAt] = useState<string | null>(null);
  const [lines, setLines] = useState<Line[]>([]);
  const [selected, setSelected] = useState(-1);
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<Product[]>([]);
  const [resultIndex, setResultIndex] = useState(0);
  const [mode, setMode] = useState<'sell' | 'pay' | 'ticket' | 'close' | 'report'>('sell');
  const [ticket, setTicket] = useState<TicketData | null>(null);
  const [report, setReport] = useState<SessionReport | null>(null);
  const [offline, setOffline] = useState(!navigator.onLine);
  const [pending, setPending] = useState(0);
  const [failed, setFailed] = useState<{ key: string; message: string }[]>([]);
  const [notice, showNotice, clearNotice] = useNotice();
  const { ask, dialog } = useConfirm();
  const input = useRef<HTMLInputElement>(null);

  const total = lines.reduce((sum, l) => sum + l.subtotalCents, 0);

  // --- catalogue: cached in IndexedDB, refreshed with its ETag ---
  const refreshCatalog = useCallback(async () => {
    const cached = await store.getCatalog().catch(() => null);
    if (cached && !catalog) {
      setCatalog(new Catalog(cached.products, state.scale_label));
      setCatalogAt(cached.at);
    }
    try {
      const res = await fetch('/api/v1/register/catalog', {
        credentials: 'same-origin',
        headers: cached ? { 'if-none-match': cached.etag } : {},
      });
      if (res.status === 304) return;
      if (!res.ok) return;
      const data = (await res.json()) as CachedCatalog;
      await store.putCatalog({ etag: data.etag, at: data.at, products: data.products }).catch(() => {});
      setCatalog(new Catalog(data.products, state.scale_label));
      setCatalogAt(data.at);
    } catch {
      setOffline(true);
    }
  }, [store, catalog, state.scale_label]);

  const refreshQueue = useCallback(async () => {
    const queued = await store.queued();
    setPending(queued.filter((q) => !q.error).length);
    setFailed(queued.filter((q) => q.error).map((q) => ({ key: q.key, message: q.error! })));
  }, [store]);

  const sync = useCallback(async () => {
    const result = await flushQueue(store);
    if (result.sent.length > 0 || result.failed.length > 0) {
      setOffline(result.stopped);
      setTicket((t) => {
        const sent = t && result.sent.find((s) => s.key === t.key);
        return sent ? { ...t, sale: sent.sale } : t;
      });
    } else if (result.stopped) {
      setOffline(true);
    } else if (navigator.onLine) {
      setOffline(false);
    }
    await refreshQueue();
    return result;
  }, [store, refreshQueue]);

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
    const timer = setInterval(() => {
      void sync();
    }, 5000);
    const catalogTimer = setInterval(() => void refreshCatalog(), 60_000);
    return () => {
      window.removeEventListener('online', online);
      window.removeEventListener('offline', offlineEvent);
      clearInterval(timer);
      clearInterval(catalogTimer);
    };
  }, []);

  // --- the input is always focused while selling ---
  const focusInput = useCallback(() => {
    if (mode === 'sell') requestAnimationFrame(() => input.current?.focus());
  }, [mode]);
  useEffect(focusInput, [focusInput, lines.length, sessionId, catalog]);
  // A scanner types wherever the focus is: keys that land on the page itself go to the input.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (mode !== 'sell' || e.key.length !== 1 || e.ctrlKey || e.metaKey || e.altKey) return;
      if (target === document.body || target.tagName === 'BUTTON') input.current?.focus();
    };
    window.addEventListener('keydown', onKey, { capture: true });
    return () => window.removeEventListener('keydown', onKey, { capture: true });
  }, [mode]);

  function addProduct(product: Product, qtyMilli = 1000) {
    setLines((current) => {
      const same = current.findIndex((l) => l.product.id === product.id && l.scaleLabel === null);
      if (same >= 0 && product.unit === 'unit') {
        const next = [...current];
        const line = next[same]!;
        const qty = line.qtyMilli + qtyMilli;
        next[same] = { ...line, qtyMilli: qty, subtotalCents: lineTotalCents(line.priceCents / 100, qty / 1000) };
        setSelected(same);
        return next;
      }
      setSelected(current.length);
      return [
        ...current,
        {
          uid: ++uid,
          product,
          qtyMilli,
          priceCents: product.priceCents,
          subtotalCents: lineTotalCents(product.priceCents / 100, qtyMilli / 1000),
          scaleLabel: null,
          priceLabel: false,
        },
      ];
    });
  }

  function enter() {
    clearNotice();
    if (results.length > 0) {
      const product = results[resultIndex];
      if (product) addProduct(product);
      setQuery('');
      setResults([]);
      return;
    }
    let text = query.trim();
    if (text === '') {
      if (lines.length > 0) startPay();
      return;
    }
    if (!catalog) {
      showNotice('error', 'El catálogo todavía se está cargando.');
      return;
    }
    let qtyMilli = 1000;
    const star = text.indexOf('*');
    if (star > 0) {
      const qty = parseQuantity(text.slice(0, star));
      if (qty === null) {
        showNotice('error', `La cantidad "${text.slice(0, star)}" no es válida.`);
        return;
      }
      qtyMilli = qty;
      text = text.slice(star + 1);
    }
    if (/^\d{4,14}$/.test(text)) {
      const found = catalog.scan(text);
      setQuery('');
      if (found.kind === 'unknown') {
        showNotice('error', found.reason);
        return;
      }
      if (found.kind === 'product') {
        addProduct(found.product, qtyMilli);
        return;
      }
      const price = found.product.priceCents;
      const qty = found.weightMilli ?? (price > 0 ? Math.max(1, Math.round((found.priceCents! * 1000) / price)) : 1000);
      const subtotal = found.priceCents ?? lineTotalCents(price / 100, qty / 1000);
      setLines((current) => {
        setSelected(current.length);
        return [
          ...current,
          {
            uid: ++uid,
            product: found.product,
            qtyMilli: qty,
            priceCents: price,
            subtotalCents: subtotal,
            scaleLabel: found.label,
            priceLabel: found.priceCents !== null,
          },
        ];
      });
      return;
    }
    const matches = catalog.search(text);
    if (matches.length === 1) {
      addProduct(matches[0]!, qtyMilli);
      setQuery('');
    } else if (matches.length === 0) {
      showNotice('error', `Ningún producto se llama "${text}".`);
    } else {
      setResults(matches);
      setResultIndex(0);
    }
  }

  function onQuery(value: string) {
    setQuery(value);
    if (!catalog || /^[\d*.,]*$/.test(value) || value.trim().length < 2) {
      setResults([]);
      return;
    }
    setResults(catalog.search(value));
    setResultIndex(0);
  }

  function changeQty(index: number, deltaMilli: number) {
    setLines((current) =>
      current.flatMap((l, n) => {
        if (n !== index || l.scaleLabel) return [l];
        const qty = l.qtyMilli + deltaMilli;
        if (qty <= 0) return [];
        return [{ ...l, qtyMilli: qty, subtotalCents: lineTotalCents(l.priceCents / 100, qty / 1000) }];
      }),
    );
  }

  function removeLine(index: number) {
    setLines((current) => current.filter((_, n) => n !== index));
    setSelected((s) => Math.min(s, lines.length - 2));
  }

  async function clearSale() {
    if (lines.length === 0) return;
    if (
      await ask('¿Anular la venta en curso? Se borran todos los productos cargados.', {
        confirmLabel: 'Anular venta',
        danger: true,
      })
    ) {
      setLines([]);
      setSelected(-1);
    }
    focusInput();
  }

  function startPay() {
    if (lines.length === 0) {
      showNotice('error', 'Cargá al menos un producto para cobrar.');
      return;
    }
    setMode('pay');
  }

  function onKeyDown(e: KeyboardEvent) {
    if (mode !== 'sell') return;
    if (e.key === 'Enter') {
      e.preventDefault();
      enter();
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      if (results.length > 0) setResultIndex((i) => Math.min(i + 1, results.length - 1));
      else setSelected((s) => Math.min(s + 1, lines.length - 1));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      if (results.length > 0) setResultIndex((i) => Math.max(i - 1, 0));
      else setSelected((s) => Math.max(s - 1, 0));
    } else if (e.key === 'Escape') {
      setQuery('');
      setResults([]);
    } else if (query === '' && (e.key === '+' || e.key === '-') && selected >= 0) {
      e.preventDefault();
      changeQty(selected, e.key === '+' ? 1000 : -1000);
    } else if (query === '' && e.key === 'Delete' && selected >= 0) {
      e.preventDefault();
      removeLine(selected);
    }
  }

  // F-keys work anywhere on the page. The listener is registered once and calls this render's
  // handler through a ref: a key pressed right after a scan (before effects run) sees the new line.
  const pageKeys = useRef<(e: KeyboardEvent) => void>(() => {});
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => pageKeys.current(e);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  pageKeys.current = (e: KeyboardEvent) => {
    if (e.key === 'F2') {
      e.preventDefault();
      if (mode === 'sell') {
        setQuery('');
        input.current?.focus();
      }
    } else if (e.key === 'F4') {
      e.preventDefault();
      if (mode === 'sell') startPay();
    } else if (e.key === 'F8') {
      e.preventDefault();
      if (mode === 'sell') void clearSale();
    } else if (e.key === 'F9' && mode === 'ticket') {
      e.preventDefault();
      window.print();
    } else if (
      mode === 'ticket' &&
      // Typing in the invoice's buyer form (or on a button or link) is not the next scan.
      !(e.target as HTMLElement).closest?.('button, a, input, select, textarea, [data-invoice-panel]') &&
      !e.ctrlKey &&
      !e.metaKey &&
      !e.altKey
    ) {
      // On the ticket, Enter or the next scan starts the next sale (the scan's first key is kept).
      if (e.key === 'Enter' || e.key.length === 1) {
        e.preventDefault();
        setTicket(null);
        setMode('sell');
        if (e.key.length === 1) setQuery(e.key);
      }
    }
  };

  async function confirmSale(payments: Payment[]) {
    if (!box || sessionId === null) return;
    const key = crypto.randomUUID();
    const body: Record<string, unknown> = {
      box_id: box.id,
      items: lines.map((l) =>
        l.scaleLabel
          ? { scale_label: l.scaleLabel, ...(l.priceLabel ? {} : { price: l.priceCents / 100 }) }
          : { product_id: l.product.id, quantity: l.qtyMilli / 1000, price: l.priceCents / 100 },
      ),
      payments: payments.map((p) => ({
        method: p.method,
        amount: p.cents / 100,
        ...(p.reference ? { reference: p.reference } : {}),
      })),
      sold_at: new Date().toISOString(),
      ...(catalogAt ? { catalog_at: catalogAt } : {}),
    };
    const paidCents = payments.reduce((s, p) => s + p.cents, 0);
    const draft: TicketData = {
      key,
      soldAt: body['sold_at'] as string,
      boxName: box.name,
      lines,
      payments,
      totalCents: total,
      changeCents: Math.max(0, paidCents - total),
      sale: null,
    };
    const queued = (await store.queued()).filter((q) => !q.error).length;
    if (queued === 0 && !offline) {
      try {
        const { sale } = await postSale(key, body);
        finish({ ...draft, sale });
        return;
      } catch (err) {
        if (!isNetworkError(err)) {
          if (err instanceof ApiError && err.code === 'no_open_session') {
            // Someone closed this box's session elsewhere: open a new one to go on (the sale stays loaded).
            setState((st) => ({ ...st, boxes: st.boxes.map((b) => (b.id === box.id ? { ...b, open_session_id: null } : b)) }));
          }
          showNotice('error', errorText(err));
          return;
        }
        setOffline(true);
      }
    }
    await store.enqueue({ key, body, totalCents: total, queuedAt: draft.soldAt });
    finish(draft);
    void sync();
  }

  function finish(data: TicketData) {
    setTicket(data);
    setLines([]);
    setSelected(-1);
    setMode('ticket');
    void refreshQueue();
  }

  async function openSession(openingCents: number, chosenBox: number) {
    try {
      const { session } = await api<{ session: { id: number } }>('POST', '/api/v1/box-sessions', {
        body: { box_id: chosenBox, opening_cash: openingCents / 100 },
        messages: { conflict: 'Esa caja ya tiene un turno abierto. Actualizá la página.' },
      });
      localStorage.setItem('caja:box', String(chosenBox));
      void keepShellOffline(true);
      setBoxId(chosenBox);
      setState((s) => ({ ...s, boxes: s.boxes.map((b) => (b.id === chosenBox ? { ...b, open_session_id: session.id } : b)) }));
      clearNotice();
    } catch (err) {
      showNotice('error', errorText(err));
    }
  }

  if (state.boxes.length === 0) {
    return (
      <section class="card">
        <h1>Caja</h1>
        <p>La empresa todavía no tiene cajas. Un administrador puede crearlas en la configuración.</p>
      </section>
    );
  }

  if (sessionId === null) {
    return (
      <OpenSession
        boxes={state.boxes}
        boxId={boxId}
        onOpen={(cents, chosen) => void openSession(cents, chosen)}
        notice={<Notice notice={notice} />}
      />
    );
  }

  const banner = offline ? (
    <p class="register-offline" role="status" id="register-offline">
      <strong>Sin conexión con el servidor.</strong> Podés seguir vendiendo: las ventas se guardan en esta computadora y se envían
      solas cuando vuelva la conexión.{pending > 0 ? ` Ventas sin enviar: ${pending}.` : ''}
    </p>
  ) : pending > 0 ? (
    <p class="register-offline" role="status" id="register-offline">
      Enviando {pending} {pending === 1 ? 'venta guardada' : 'ventas guardadas'} sin conexión…
    </p>
  ) : null;

  if (mode === 'close' || mode === 'report') {
    return (
      <CloseSession
        sessionId={sessionId}
        boxName={box?.name ?? ''}
        company={state.company}
        pending={pending}
        report={report}
        onClosed={(r) => {
          setReport(r);
          setMode('report');
        }}
        onBack={() => setMode('sell')}
        onNewSession={() => {
          setState((s) => ({ ...s, boxes: s.boxes.map((b) => (b.id === boxId ? { ...b, open_session_id: null } : b)) }));
          setReport(null);
          setMode('sell');
        }}
      />
    );
  }

  return (
    <div class="register">
      {banner}
      {failed.length > 0 ? (
        <div class="notice notice-error" role="alert">
          {failed.length === 1 ? 'Una venta guardada sin conexión' : `${failed.length} ventas guardadas sin conexión`} no se pudo
          registrar: {failed.map((f) => f.message).join(' · ')} Avisale a un administrador.
        </div>
      ) : null}
      <div class="register-head row">
        <span class="badge ok">
          {box?.name} · turno {sessionId}
        </span>
        <span class="muted">{catalog ? `${catalog.size.toLocaleString('es-AR')} productos` : 'Cargando catálogo…'}</span>
        <span class="muted">{user.name ?? user.email}</span>
        <button type="button" class="secondary" onClick={() => setMode('close')} id="register-close">
          Cerrar caja
        </button>
      </div>
      {mode === 'ticket' && ticket ? (
        <Ticket
          data={ticket}
          company={state.company}
          onNew={() => {
            setTicket(null);
            setMode('sell');
          }}
        />
      ) : (
        <div class="register-grid">
          <div class="register-main">
            <label for="register-input" class="visually-hidden">
              Código de barras, etiqueta de balanza o nombre
            </label>
            <input
              id="register-input"
              ref={input}
              class="register-input"
              autoComplete="off"
              spellcheck={false}
              placeholder="Escaneá o escribí código o nombre · 3*código para cantidad"
              value={query}
              onInput={(e) => onQuery((e.target as HTMLInputElement).value)}
              onKeyDown={onKeyDown}
              onBlur={() => {
                if (mode === 'sell' && !document.querySelector('dialog[open]')) setTimeout(() => input.current?.focus(), 0);
              }}
            />
            <Notice notice={notice} id="register-notice" />
            {results.length > 0 ? (
              <ul class="register-results" aria-label="Productos encontrados" id="register-results">
                {results.map((p, n) => (
                  <li key={p.id} class={n === resultIndex ? 'active' : ''}>
                    <button
                      type="button"
                      class="link"
                      tabIndex={-1}
                      aria-current={n === resultIndex ? 'true' : undefined}
                      onMouseDown={(e) => {
                        e.preventDefault();
                        addProduct(p);
                        setQuery('');
                        setResults([]);
                      }}
                    >
                      {p.name}
                    </button>
                    <span class="num">{formatArs(p.priceCents)}</span>
                  </li>
                ))}
              </ul>
            ) : null}
            <div class="table-wrap register-lines">
              <table id="register-lines">
                <thead>
                  <tr>
                    <th>Producto</th>
                    <th class="num">Cant.</th>
                    <th class="num">Precio</th>
                    <th class="num">Subtotal</th>
                    <th>
                      <span class="visually-hidden">Acciones</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {lines.length === 0 ? (
                    <tr>
                      <td colSpan={5} class="muted">
                        Escaneá un producto para empezar la venta.
                      </td>
                    </tr>
                  ) : (
                    lines.map((l, n) => (
                      <tr key={l.uid} class={n === selected ? 'selected' : ''} data-line onClick={() => setSelected(n)}>
                        <td>
                          {l.product.name}
                          {l.scaleLabel ? <span class="muted"> · balanza</span> : null}
                        </td>
                        <td class="num">{formatQty(l.qtyMilli, l.product.unit)}</td>
                        <td class="num">{formatArs(l.priceCents)}</td>
                        <td class="num">{formatArs(l.subtotalCents)}</td>
                        <td class="line-actions">
                          {l.scaleLabel ? null : (
                            <>
                              <button
                                type="button"
                                class="secondary"
                                aria-label={`Uno menos de ${l.product.name}`}
                                onClick={() => changeQty(n, -1000)}
                              >
                                −
                              </button>
                              <button
                                type="button"
                                class="secondary"
                                aria-label={`Uno más de ${l.product.name}`}
                                onClick={() => changeQty(n, 1000)}
                              >
                                +
                              </button>
                            </>
                          )}
                          <button
                            type="button"
                            class="secondary"
                            aria-label={`Quitar ${l.product.name}`}
                            onClick={() => removeLine(n)}
                          >
                            ✕
                          </button>
                        </td>
                      </tr>
                    ))
                  )}
                </tbody>
              </table>
            </div>
          </div>
          <aside class="register-side">
            <p class="register-total-label">Total</p>
            <p class="register-total" id="register-total">
              {formatArs(total)}
            </p>
            <p class="muted">
              {lines.length === 0 ? 'Sin productos' : `${lines.length} ${lines.length === 1 ? 'línea' : 'líneas'}`}
            </p>
            <button type="button" class="register-pay" onClick={startPay} disabled={lines.length === 0}>
              Cobrar (F4)
            </button>
            <button type="button" class="secondary" onClick={() => void clearSale()} disabled={lines.length === 0}>
              Anular venta (F8)
            </button>
            <p class="hint">F2 buscar · Enter agrega · ↑↓ elegir · +/− cantidad · Supr quitar</p>
          </aside>
        </div>
      )}
      {mode === 'pay' ? (
        <PayDialog
          totalCents={total}
          onCancel={() => setMode('sell')}
          onConfirm={(payments) => {
            setMode('sell');
            void confirmSale(payments);
          }}
        />
      ) : null}
      {dialog}
    </div>
  );
}

/**
 * Installs the register's service worker and stores this page and its assets, so the register
 * opens without connection. `fresh`: store the page again (its data changed: a session opened).
 */
async function keepShellOffline(fresh = false) {
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

function fold(text: string) {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
}

function OpenSession({
  boxes,
  boxId,
  onOpen,
  notice,
}: {
  boxes: RegisterState['boxes'];
  boxId: number | null;
  onOpen: (cents: number, boxId: number) => void;
  notice: preact.ComponentChild;
}) {
  const [chosen, setChosen] = useState(boxId ?? boxes[0]!.id);
  const cashRef = useRef<HTMLInputElement>(null);
  useEffect(() => cashRef.current?.focus(), []);
  const [amount, setAmount] = useState('');
  const [error, setError] = useState<string | null>(null);
  const free = boxes.find((b) => b.id === chosen)?.open_session_id !== null;
  return (
    <section class="card register-open">
      <h1>Abrir la caja</h1>
      <p class="muted">Contá el efectivo con el que empezás el turno.</p>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          const cents = parseCents(amount === '' ? '0' : amount);
          if (cents === null) {
            setError('Escribí un monto, por ejemplo 5000 o 5.000,50.');
            return;
          }
          onOpen(cents, chosen);
        }}
      >
        {boxes.length > 1 ? (
          <div class="field">
            <label for="open-box">Caja</label>
            <select id="open-box" value={chosen} onChange={(e) => setChosen(Number((e.target as HTMLSelectElement).value))}>
              {boxes.map((b) => (
                <option key={b.id} value={b.id}>
                  {b.name}
                  {b.open_session_id ? ' (abierta)' : ''}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        <div class="field">
          <label for="open-cash">Efectivo inicial</label>
          <input
            id="open-cash"
            ref={cashRef}
            inputMode="decimal"
            value={amount}
            onInput={(e) => setAmount((e.target as HTMLInputElement).value)}
            placeholder="0"
          />
        </div>
        {error ? <p class="error">{error}</p> : null}
        {notice}
        <button type="submit">{free ? 'Usar esta caja' : 'Abrir caja'}</button>
      </form>
    </section>
  );
}

function PayDialog({
  totalCents,
  onCancel,
  onConfirm,
}: {
  totalCents: number;
  onCancel: () => void;
  onConfirm: (payments: Payment[]) => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const amountRef = useRef<HTMLInputElement>(null);
  const [payments, setPayments] = useState<Payment[]>([]);
  const [method, setMethod] = useState('efectivo');
  const paid = payments.reduce((s, p) => s + p.cents, 0);
  const remaining = Math.max(0, totalCents - paid);
  const [amount, setAmount] = useState((remaining / 100).toFixed(2).replace('.', ','));
  const [reference, setReference] = useState('');
  const [error, setError] = useState<string | null>(null);
  const typed = parseCents(amount);
  const changeCents = method === 'efectivo' && typed !== null ? Math.max(0, paid + typed - totalCents) : 0;

  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    amountRef.current?.select();
  }, []);
  useEffect(() => {
    amountRef.current?.focus();
    amountRef.current?.select();
  }, [method, payments.length]);

  function add(): Payment[] | null {
    if (typed === null || typed <= 0) {
      setError('Escribí el monto, por ejemplo 5000 o 5.000,50.');
      return null;
    }
    if (method !== 'efectivo' && typed > remaining) {
      setError(
        `Con ${methodLabel(method)} no se puede cobrar más de lo que falta (${formatArs(remaining)}). Solo el efectivo da vuelto.`,
      );
      return null;
    }
    setError(null);
    const next = [...payments, { method, cents: typed, reference: reference.trim() }];
    setPayments(next);
    setReference('');
    const left = Math.max(0, totalCents - next.reduce((s, p) => s + p.cents, 0));
    setAmount((left / 100).toFixed(2).replace('.', ','));
    return next;
  }

  function submit() {
    const next = remaining === 0 && payments.length > 0 && (amount.trim() === '' || typed === 0) ? payments : add();
    if (!next) return;
    const sum = next.reduce((s, p) => s + p.cents, 0);
    if (sum >= totalCents) onConfirm(next);
  }

  return (
    <dialog
      ref={ref}
      class="confirm register-pay-dialog"
      aria-labelledby="pay-title"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id="pay-title">Cobrar {formatArs(totalCents)}</h2>
      <fieldset class="pay-methods">
        <legend class="visually-hidden">Medio de pago</legend>
        {METHODS.map((m, n) => (
          <button
            key={m.id}
            type="button"
            aria-pressed={method === m.id}
            class={method === m.id ? '' : 'secondary'}
            onClick={() => setMethod(m.id)}
          >
            {n + 1}. {m.label}
          </button>
        ))}
      </fieldset>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
        onKeyDown={(e) => {
          const n = Number(e.key);
          if ((e.target as HTMLElement).id !== 'pay-reference' && e.altKey && n >= 1 && n <= METHODS.length) {
            e.preventDefault();
            setMethod(METHODS[n - 1]!.id);
          }
        }}
      >
        <div class="field">
          <label for="pay-amount">{method === 'efectivo' ? 'Efectivo recibido' : `Monto con ${methodLabel(method)}`}</label>
          <input
            id="pay-amount"
            ref={amountRef}
            inputMode="decimal"
            class="pay-amount"
            value={amount}
            onInput={(e) => setAmount((e.target as HTMLInputElement).value)}
          />
        </div>
        {method !== 'efectivo' ? (
          <div class="field">
            <label for="pay-reference">Referencia (opcional)</label>
            <input
              id="pay-reference"
              value={reference}
              onInput={(e) => setReference((e.target as HTMLInputElement).value)}
              placeholder="N.º de cupón u operación"
            />
          </div>
        ) : null}
        {payments.length > 0 ? (
          <ul class="pay-list" id="pay-list">
            {payments.map((p, n) => (
              <li key={n}>
                {methodLabel(p.method)} {formatArs(p.cents)}
                {p.reference ? <span class="muted"> · {p.reference}</span> : null}
              </li>
            ))}
          </ul>
        ) : null}
        <dl class="facts pay-facts">
          <dt>Falta</dt>
          <dd id="pay-remaining">{formatArs(remaining)}</dd>
          {changeCents > 0 ? (
            <>
              <dt>Vuelto</dt>
              <dd id="pay-change" class="pay-change">
                {formatArs(changeCents)}
              </dd>
            </>
          ) : null}
        </dl>
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
        <div class="row end">
          <button type="button" class="secondary" onClick={onCancel}>
            Volver (Esc)
          </button>
          <button type="button" class="secondary" onClick={() => add()} id="pay-add">
            Agregar otro pago
          </button>
          <button type="submit" id="pay-confirm">
            Confirmar (Enter)
          </button>
        </div>
      </form>
    </dialog>
  );
}
