import { useState } from 'preact/hooks';
import { ApiError, api, errorText } from '../ui/api.ts';
import { useDebouncedGet } from '../ui/debounced-get.ts';
import { Field } from '../ui/form.tsx';
import { Card, PageTitle, TableWrap } from '../ui/layout.tsx';
import { Notice, useNotice } from '../ui/notice.tsx';
import { formatStockQuantity } from '../ui/messages.ts';
import { mountPage } from '../ui/page-data.ts';

interface Deposit {
  id: number;
  name: string;
  is_default: boolean;
}
interface Level {
  product_id: number;
  deposit_id: number;
  name: string;
  sku: string | null;
  stock: number;
  min_stock: number | null;
}
type MoveType = 'IN' | 'OUT' | 'TRANSFER' | 'ADJUSTMENT';

const ACTIONS: Record<MoveType, { label: string; amount: string; done: string }> = {
  IN: { label: 'Recibir mercadería', amount: 'Cantidad recibida', done: 'Entrada registrada' },
  OUT: { label: 'Sacar (rotura, vencido, consumo)', amount: 'Cantidad que sale', done: 'Salida registrada' },
  TRANSFER: { label: 'Pasar a otro depósito', amount: 'Cantidad a pasar', done: 'Transferencia registrada' },
  ADJUSTMENT: { label: 'Ajustar después de contar', amount: 'Cantidad contada', done: 'Stock ajustado al conteo' },
};

const quantity = (value: number) => value.toLocaleString('es-AR', { maximumFractionDigits: 3 });

function Stock({ deposits }: { deposits: Deposit[] }) {
  const main = deposits.find((d) => d.is_default) ?? deposits[0];
  const [deposit, setDeposit] = useState(String(main?.id ?? ''));
  const [q, setQ] = useState('');
  const [low, setLow] = useState(false);
  const [levels, setLevels] = useState<Level[] | null>(null);
  const [selected, setSelected] = useState<Level | null>(null);
  const [type, setType] = useState<MoveType>('IN');
  const [amount, setAmount] = useState('');
  const [target, setTarget] = useState('');
  const [reason, setReason] = useState('');
  const [notice, say] = useNotice();
  const [reload, setReload] = useState(0);
  /** What would be left when the deposit does not hold that much: asked before recording it anyway. */
  const [shortBy, setShortBy] = useState<number | null>(null);

  const params = new URLSearchParams({ limit: '100' });
  if (deposit) params.set('deposit_id', deposit);
  if (q.trim()) params.set('q', q.trim());
  if (low) params.set('low_stock', 'true');
  useDebouncedGet<{ stock: Level[] }>(
    `/api/v1/stock?${params}`,
    reload,
    (answer) => setLevels(answer.stock),
    (text) => say('error', text),
  );

  async function submit(e: Event, allowNegative = false) {
    e.preventDefault();
    if (!selected) return;
    setShortBy(null);
    const value = Number(amount.replace(/\./g, '').replace(',', '.'));
    if (!Number.isFinite(value) || value < 0 || (type !== 'ADJUSTMENT' && value === 0)) {
      say('error', 'Escribí una cantidad válida (por ejemplo 12 o 1,5).');
      return;
    }
    try {
      await api('POST', '/api/v1/movements', {
        body: {
          type,
          product_id: selected.product_id,
          deposit_id: selected.deposit_id,
          amount: value,
          ...(reason.trim() ? { reason: reason.trim() } : {}),
          ...(type === 'TRANSFER' ? { to_deposit_id: Number(target) } : {}),
          ...(allowNegative ? { allow_negative: true } : {}),
        },
        messages: { invalid_state: 'El conteo coincide con el stock: no hay nada que ajustar.' },
      });
      say('ok', `${ACTIONS[type].done}: ${selected.name}.`);
      setSelected(null);
      setAmount('');
      setReason('');
      setReload((n) => n + 1);
    } catch (err) {
      const remaining = Number(
        err instanceof ApiError && err.code === 'insufficient_stock'
          ? err.body?.details?.find((d) => d.path === '/remaining')?.message
          : Number.NaN,
      );
      if (Number.isFinite(remaining)) setShortBy(remaining);
      else say('error', errorText(err));
    }
  }

  const others = deposits.filter((d) => String(d.id) !== String(selected?.deposit_id));
  return (
    <>
      <PageTitle lead="Cuánto hay en cada depósito, qué está por debajo del mínimo, y los movimientos del día a día.">
        Stock
      </PageTitle>
      <Notice notice={notice} />
      <Card title="Stock por depósito" id="stock">
        <form class="row filters" onSubmit={(e) => e.preventDefault()}>
          <label for="stock-deposit">Depósito</label>
          <select id="stock-deposit" value={deposit} onChange={(e) => setDeposit((e.target as HTMLSelectElement).value)}>
            {deposits.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>
          <label for="stock-search" class="visually-hidden">
            Buscar
          </label>
          <input
            id="stock-search"
            type="search"
            placeholder="Buscar producto"
            value={q}
            onInput={(e) => setQ((e.target as HTMLInputElement).value)}
          />
          <label class="row">
            <input
              type="checkbox"
              id="stock-low"
              checked={low}
              onChange={(e) => setLow((e.target as HTMLInputElement).checked)}
            />
            Solo bajo el mínimo o en negativo
          </label>
        </form>
        {levels === null ? <p class="muted">Cargando…</p> : null}
        {levels?.length === 0 ? (
          <p data-no-levels>
            {low
              ? 'Nada por debajo del mínimo ni en negativo en este depósito.'
              : q.trim()
                ? 'No hay productos con esa búsqueda.'
                : 'Todavía no hay productos: cargalos en Productos.'}
          </p>
        ) : null}
        {levels && levels.length > 0 ? (
          <TableWrap id="stock-rows" stack>
            <thead>
              <tr>
                <th>Producto</th>
                <th>Stock</th>
                <th>Mínimo</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {levels.map((l) => (
                <tr key={`${l.product_id}-${l.deposit_id}`} data-level={l.product_id}>
                  <td>
                    {l.name}
                    {l.sku ? <span class="muted"> · {l.sku}</span> : null}
                  </td>
                  <td
                    data-label="Stock"
                    class={l.stock < 0 || (l.min_stock !== null && l.stock <= l.min_stock) ? 'error-text' : ''}
                  >
                    {formatStockQuantity(l.stock)}
                  </td>
                  <td data-label="Mínimo">{l.min_stock === null ? '—' : quantity(l.min_stock)}</td>
                  <td>
                    <button
                      type="button"
                      class="secondary"
                      onClick={() => {
                        setSelected(l);
                        setTarget(String(deposits.find((d) => d.id !== l.deposit_id)?.id ?? ''));
                      }}
                    >
                      Mover
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </TableWrap>
        ) : null}
      </Card>
      {selected ? (
        <Card title={`Mover: ${selected.name}`} id="movement">
          <form class="grid-form" onSubmit={submit}>
            <Field id="move-type" label="Qué pasó">
              <select id="move-type" value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value as MoveType)}>
                {(Object.keys(ACTIONS) as MoveType[])
                  .filter((t) => t !== 'TRANSFER' || others.length > 0)
                  .map((t) => (
                    <option key={t} value={t}>
                      {ACTIONS[t].label}
                    </option>
                  ))}
              </select>
            </Field>
            <Field id="move-amount" label={ACTIONS[type].amount} hint={`Hoy hay ${quantity(selected.stock)} en este depósito.`}>
              <input
                id="move-amount"
                required
                inputMode="decimal"
                value={amount}
                onInput={(e) => setAmount((e.target as HTMLInputElement).value)}
              />
            </Field>
            {type === 'TRANSFER' ? (
              <Field id="move-target" label="A qué depósito">
                <select id="move-target" value={target} onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}>
                  {others.map((d) => (
                    <option key={d.id} value={d.id}>
                      {d.name}
                    </option>
                  ))}
                </select>
              </Field>
            ) : null}
            <Field id="move-reason" label="Motivo (opcional)" hint="Por ejemplo el número de remito.">
              <input
                id="move-reason"
                maxLength={500}
                value={reason}
                onInput={(e) => setReason((e.target as HTMLInputElement).value)}
              />
            </Field>
            {shortBy !== null ? (
              <div class="notice notice-error" role="alert" id="move-confirm">
                <p>Quedan {formatStockQuantity(shortBy)}. ¿Registrar igual?</p>
                <div class="row">
                  <button type="button" id="move-confirm-yes" onClick={(e) => submit(e, true)}>
                    Registrar igual
                  </button>
                  <button type="button" class="secondary" onClick={() => setShortBy(null)}>
                    No, corregir
                  </button>
                </div>
              </div>
            ) : null}
            <div class="row">
              <button type="submit">Registrar</button>
              <button
                type="button"
                class="secondary"
                onClick={() => {
                  setSelected(null);
                  setShortBy(null);
                }}
              >
                Cancelar
              </button>
            </div>
          </form>
        </Card>
      ) : null}
    </>
  );
}

mountPage<{ deposits: Deposit[] }>((data) => <Stock {...data} />);
