import { useEffect, useRef, useState } from 'preact/hooks';
import { formatPesos, formatQuantity } from '../../../lib/money.ts';
import type { SaleWire } from '../../../modules/sales/sales.schemas.ts';
import { ApiError, api } from '../../ui/api.ts';
import { useConfirm } from '../../ui/dialog.tsx';
import { ApprovalDialog } from './approval-dialog.tsx';
import { MONEY_METHODS, methodLabel } from './methods.ts';

type ReturnWire = NonNullable<SaleWire['returns']>[number];

/** A product of the register's catalogue: [id, name, price, barcode, sku, unit]. */
type CatalogRow = [number, string, number, string | null, string | null, 'unit' | 'kg'];

const REFUND_METHODS = MONEY_METHODS.filter((m) => m.id !== 'cuenta_corriente');

/** The texts of this dialog's refusals, by code (the rest: ui/messages.ts). */
const RETURN_MESSAGES = {
  forbidden: 'Devolver dinero lo hace un administrador: pedíselo, o elegí "Saldo a favor" si la venta tiene cliente.',
  invalid_state: 'Esta venta ya no se puede devolver (puede que esté anulada o sin cobrar). Actualizá la página.',
  invalid_reference: 'Algún producto de la venta o del cambio ya no existe.',
};

/** Where an error goes: the control its detail names (`/lines/1/quantity` → "line:1"), else beside the button. */
function placeOf(err: ApiError, mode: 'return' | 'exchange'): string {
  const path = err.body?.details?.[0]?.path ?? '';
  const line = /^\/(?:return_)?lines\/(\d+)/.exec(path);
  if (line) return `line:${line[1]}`;
  if (path.startsWith('/new_items')) return 'new';
  if (path.startsWith('/payments')) return 'new';
  if (path === '/refund' || path === '/box_session_id') return 'refund';
  if (path === '/reason') return 'reason';
  if (err.code === 'no_refund_session' || err.code === 'forbidden') return 'refund';
  if (err.code === 'no_open_session') return mode === 'exchange' ? 'new' : 'refund';
  return 'submit';
}

/**
 * "Devolver" and "Cambiar" of a sale: pick the lines and quantities to give back, how the money
 * goes back (a method, or credit on the customer's account), the reason; for an exchange, the new
 * products. A confirmation comes before any money moves; a refusal shows beside the control that
 * caused it.
 */
export function ReturnDialog({
  sale,
  mode,
  boxes,
  onDone,
  onClose,
}: {
  sale: SaleWire;
  mode: 'return' | 'exchange';
  boxes: { id: number; name: string }[];
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const { ask, dialog: confirm } = useConfirm();
  const [qty, setQty] = useState<Record<number, string>>({});
  const [refund, setRefund] = useState<string>('efectivo');
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [catalog, setCatalog] = useState<CatalogRow[]>([]);
  const [newItems, setNewItems] = useState<{ id: number; quantity: number }[]>([]);
  const [pick, setPick] = useState('');
  const [boxId, setBoxId] = useState(String(sale.box_id ?? boxes[0]?.id ?? 1));
  const [key] = useState(() => crypto.randomUUID());
  // A cashier's refund of money waiting for an admin's email and password (the same request again).
  const [approval, setApproval] = useState<{ error: string | null; busy: boolean } | null>(null);

  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  useEffect(() => {
    if (mode !== 'exchange') return;
    api<{ products: CatalogRow[] }>('GET', '/api/v1/register/catalog')
      .then((body) => setCatalog(body.products))
      .catch(() => setErrors({ new: 'No se pudieron cargar los productos. Actualizá la página.' }));
  }, [mode]);

  const left = (i: SaleWire['items'][number]) => Math.round((i.quantity - (i.returned_quantity ?? 0)) * 1000) / 1000;
  const lines = sale.items
    .map((i, n) => ({ item: i, n, quantity: Number((qty[i.id] ?? '').replace(',', '.')) }))
    .filter((l) => l.quantity > 0);
  // What goes back: each line's share of its subtotal (the server computes the exact cents).
  const back = lines.reduce((sum, l) => sum + Math.round((l.item.subtotal * 100 * l.quantity) / l.item.quantity), 0) / 100;
  const newTotal =
    newItems.reduce((sum, it) => sum + Math.round((catalog.find((c) => c[0] === it.id)?.[2] ?? 0) * 100) * it.quantity, 0) / 100;

  function fail(err: unknown) {
    if (err instanceof ApiError) {
      // The server names the line by its place in the request; the screen, by the sale's line.
      const place = placeOf(err, mode);
      const sent = /^line:(\d+)$/.exec(place);
      const shown = sent ? `line:${lines[Number(sent[1])]?.n ?? 0}` : place;
      setErrors({ [shown]: err.message });
    } else setErrors({ submit: 'Algo salió mal en esta página. Actualizala y probá de nuevo.' });
  }

  async function submit(e: Event) {
    e.preventDefault();
    const found: Record<string, string> = {};
    if (lines.length === 0) found['lines'] = 'Elegí qué se devuelve: la cantidad de al menos una línea.';
    if (!reason.trim()) found['reason'] = 'Escribí el motivo.';
    if (mode === 'exchange' && newItems.length === 0) found['new'] = 'Agregá lo que se lleva a cambio.';
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const how = refund === 'store_credit' ? 'como saldo a favor del cliente' : `en ${methodLabel(refund).toLowerCase()}`;
    const question =
      mode === 'return'
        ? `¿Devolver ${formatPesos(back)} ${how}? El stock vuelve al depósito${sale.status === 'paid' ? '' : ''}.`
        : newTotal >= back
          ? `¿Hacer el cambio? Lo devuelto (${formatPesos(back)}) paga lo nuevo (${formatPesos(newTotal)}); el cliente paga ${formatPesos(newTotal - back)} ${how}.`
          : `¿Hacer el cambio? Lo nuevo cuesta ${formatPesos(newTotal)}: le devolvés ${formatPesos(back - newTotal)} ${how}.`;
    if (!(await ask(question, { confirmLabel: mode === 'return' ? 'Devolver' : 'Hacer el cambio', danger: true }))) return;
    await send();
  }

  /** The request (again with the same key after an admin approved the refund). */
  async function send(approvedBy?: { email: string; password: string }) {
    setBusy(true);
    if (approvedBy) setApproval({ error: null, busy: true });
    try {
      const returnLines = lines.map((l) => ({ item_id: l.item.id, quantity: l.quantity }));
      if (mode === 'return') {
        const { return: ret } = await api<{ return: ReturnWire }>('POST', `/api/v1/sales/${sale.id}/returns`, {
          body: {
            lines: returnLines,
            refund: refund === 'store_credit' ? 'store_credit' : { method: refund },
            reason: reason.trim(),
            ...(approvedBy ? { approval: approvedBy } : {}),
          },
          headers: { 'x-idempotency-key': key },
          messages: RETURN_MESSAGES,
        });
        setApproval(null);
        onDone(`Devolución registrada: ${formatPesos(ret.amount)}. ${creditNoteText(ret)}`.trim());
      } else {
        const extra = newTotal - back;
        const { exchange } = await api<{ exchange: { return: ReturnWire; sale: SaleWire; difference: number } }>(
          'POST',
          `/api/v1/sales/${sale.id}/exchanges`,
          {
            body: {
              box_id: Number(boxId),
              return_lines: returnLines,
              new_items: newItems.map((it) => ({ product_id: it.id, quantity: it.quantity })),
              refund_method: refund,
              ...(extra > 0 ? { payments: [{ method: refund, amount: extra }] } : {}),
              reason: reason.trim(),
            },
            headers: { 'x-idempotency-key': key },
            messages: RETURN_MESSAGES,
          },
        );
        onDone(
          `Cambio hecho: venta nueva N.º ${exchange.sale.id}. ${
            exchange.difference >= 0
              ? `El cliente pagó ${formatPesos(exchange.difference)}.`
              : `Se le devolvieron ${formatPesos(-exchange.difference)}.`
          } ${creditNoteText(exchange.return)}`.trim(),
        );
      }
    } catch (err) {
      // Money back by a cashier: an admin approves here, on the spot; a refusal shows in that dialog.
      if (err instanceof ApiError && err.code === 'refund_needs_approval') setApproval({ error: null, busy: false });
      else if (err instanceof ApiError && approvedBy && (err.code === 'approval_refused' || err.code === 'rate_limited')) {
        setApproval({ error: err.message, busy: false });
      } else {
        setApproval(null);
        fail(err);
      }
    } finally {
      setBusy(false);
    }
  }

  const errorOf = (place: string) =>
    errors[place] ? (
      <p class="error-text" role="alert" data-error={place}>
        {errors[place]}
      </p>
    ) : null;

  return (
    <dialog
      ref={ref}
      class="return-dialog"
      aria-labelledby="return-title"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {/* noValidate: the server's refusal (beyond what was sold…) shows beside its line, in Spanish. */}
      <form onSubmit={(e) => void submit(e)} id="return-form" noValidate>
        <h2 id="return-title">
          {mode === 'return' ? `Devolver de la venta N.º ${sale.id}` : `Cambio de la venta N.º ${sale.id}`}
        </h2>
        <fieldset>
          <legend>Qué se devuelve</legend>
          <ul class="return-lines">
            {sale.items.map((i, n) => (
              <li key={i.id} data-return-line={i.id}>
                <label for={`return-qty-${i.id}`}>
                  {i.name}
                  <span class="muted">
                    {' '}
                    · {formatQuantity(i.quantity)} × <span class="money">{formatPesos(i.price)}</span>
                    {(i.returned_quantity ?? 0) > 0 ? ` · ya devuelto ${formatQuantity(i.returned_quantity ?? 0)}` : ''}
                  </span>
                </label>
                <input
                  id={`return-qty-${i.id}`}
                  type="number"
                  inputMode="decimal"
                  min={0}
                  max={left(i)}
                  step={i.unit === 'kg' ? 0.001 : 1}
                  disabled={left(i) <= 0}
                  value={qty[i.id] ?? ''}
                  placeholder="0"
                  onInput={(e) => setQty((q) => ({ ...q, [i.id]: (e.target as HTMLInputElement).value }))}
                />
                {errorOf(`line:${n}`)}
              </li>
            ))}
          </ul>
          {errorOf('lines')}
        </fieldset>
        {mode === 'exchange' ? (
          <fieldset>
            <legend>Qué se lleva</legend>
            {boxes.length > 1 ? (
              <label>
                Caja{' '}
                <select value={boxId} onChange={(e) => setBoxId((e.target as HTMLSelectElement).value)}>
                  {boxes.map((b) => (
                    <option key={b.id} value={b.id}>
                      {b.name}
                    </option>
                  ))}
                </select>
              </label>
            ) : null}
            <div class="row">
              <label class="visually-hidden" for="exchange-product">
                Producto
              </label>
              <select id="exchange-product" value={pick} onChange={(e) => setPick((e.target as HTMLSelectElement).value)}>
                <option value="">Elegí un producto…</option>
                {catalog.map((c) => (
                  <option key={c[0]} value={c[0]}>
                    {c[1]} · {formatPesos(c[2])}
                  </option>
                ))}
              </select>
              <button
                type="button"
                class="secondary"
                data-exchange-add
                disabled={!pick}
                onClick={() => {
                  const id = Number(pick);
                  setNewItems((list) =>
                    list.some((it) => it.id === id)
                      ? list.map((it) => (it.id === id ? { ...it, quantity: it.quantity + 1 } : it))
                      : [...list, { id, quantity: 1 }],
                  );
                }}
              >
                Agregar
              </button>
            </div>
            <ul class="return-lines" id="exchange-items">
              {newItems.map((it) => {
                const row = catalog.find((c) => c[0] === it.id);
                return (
                  <li key={it.id}>
                    <span>
                      {row?.[1]} × {it.quantity}
                    </span>
                    <span class="money">{formatPesos((row?.[2] ?? 0) * it.quantity)}</span>
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Quitar ${row?.[1] ?? ''}`}
                      onClick={() => setNewItems((list) => list.filter((x) => x.id !== it.id))}
                    >
                      ✕
                    </button>
                  </li>
                );
              })}
            </ul>
            {errorOf('new')}
          </fieldset>
        ) : null}
        <label for="return-refund">{mode === 'return' ? 'Cómo se devuelve' : 'Medio para la diferencia'}</label>
        <select id="return-refund" value={refund} onChange={(e) => setRefund((e.target as HTMLSelectElement).value)}>
          {REFUND_METHODS.map((m) => (
            <option key={m.id} value={m.id}>
              {m.label}
            </option>
          ))}
          {mode === 'return' && sale.customer_id !== null ? (
            <option value="store_credit">Saldo a favor del cliente</option>
          ) : null}
        </select>
        {errorOf('refund')}
        <label for="return-reason">Motivo</label>
        <input
          id="return-reason"
          maxLength={500}
          value={reason}
          onInput={(e) => setReason((e.target as HTMLInputElement).value)}
          placeholder="Por ejemplo: vencido, no le gustó"
        />
        {errorOf('reason')}
        <p class="return-total" data-return-total>
          {mode === 'return' ? 'Se devuelve ' : 'Lo devuelto vale '}
          <strong class="money">{formatPesos(back)}</strong>
          {mode === 'exchange' ? (
            <>
              {' '}
              · lo nuevo <strong class="money">{formatPesos(newTotal)}</strong>
            </>
          ) : null}
        </p>
        <div class="row end">
          <button type="button" class="secondary" onClick={onClose}>
            Cerrar
          </button>
          <button type="submit" class="danger" disabled={busy} data-return-submit>
            {mode === 'return' ? 'Devolver' : 'Hacer el cambio'}
          </button>
        </div>
        {errorOf('submit')}
      </form>
      {confirm}
      {approval ? (
        <ApprovalDialog
          summary={`Devolver ${formatPesos(back)} en ${methodLabel(refund).toLowerCase()} lo aprueba un administrador: que ingrese su email y su contraseña.`}
          error={approval.error}
          busy={approval.busy}
          confirmLabel="Aprobar y devolver"
          onCancel={() => setApproval(null)}
          onApprove={(email, password) => void send({ email, password })}
        />
      ) : null}
    </dialog>
  );
}

/** What the screen says of a return's credit note. */
export function creditNoteText(ret: ReturnWire): string {
  if (!ret.credit_note) return '';
  if (ret.credit_note.status === 'issued') return `Nota de crédito ${ret.credit_note.number}.`;
  if (ret.credit_note.status === 'pending')
    return 'La nota de crédito quedó pendiente: ARCA no respondió y se emite sola en cuanto responda.';
  return 'ARCA rechazó la nota de crédito: revisala en Facturación.';
}
