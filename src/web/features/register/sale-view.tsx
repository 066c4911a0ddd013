import type { ComponentChild, RefObject } from 'preact';
import { formatArs, formatQuantity, fromMilli } from '../../../lib/money.ts';
import { type SaleAction, type SaleState, saleTotal } from './sale-state.ts';

const formatQty = (milli: number, unit: string) => formatQuantity(fromMilli(milli), unit);

/**
 * Selling: the input (scanner or typing), the products found for a name, the lines of the sale
 * and, beside them, the total with Cobrar and Anular. It shows `sale` and dispatches; it keeps no
 * state of its own.
 */
export function SaleView({
  sale,
  dispatch,
  input,
  notice,
  onQuery,
  onKeyDown,
  onPay,
  onClear,
}: {
  sale: SaleState;
  dispatch: (action: SaleAction) => void;
  input: RefObject<HTMLInputElement | null>;
  notice: ComponentChild;
  onQuery: (text: string) => void;
  onKeyDown: (e: KeyboardEvent) => void;
  onPay: () => void;
  onClear: () => void;
}) {
  const { lines, selected, results, resultIndex } = sale;
  return (
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
          value={sale.query}
          onInput={(e) => onQuery((e.target as HTMLInputElement).value)}
          onKeyDown={onKeyDown}
          onBlur={() => {
            if (sale.mode === 'sell' && !document.querySelector('dialog[open]')) setTimeout(() => input.current?.focus(), 0);
          }}
        />
        {notice}
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
                    dispatch({ type: 'add', product: p });
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
                  <tr
                    key={l.uid}
                    class={n === selected ? 'selected' : ''}
                    data-line
                    onClick={() => dispatch({ type: 'select', index: n })}
                  >
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
                            onClick={() => dispatch({ type: 'change_qty', index: n, deltaMilli: -1000 })}
                          >
                            −
                          </button>
                          <button
                            type="button"
                            class="secondary"
                            aria-label={`Uno más de ${l.product.name}`}
                            onClick={() => dispatch({ type: 'change_qty', index: n, deltaMilli: 1000 })}
                          >
                            +
                          </button>
                        </>
                      )}
                      <button
                        type="button"
                        class="secondary"
                        aria-label={`Quitar ${l.product.name}`}
                        onClick={() => dispatch({ type: 'remove', index: n })}
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
          {formatArs(saleTotal(sale))}
        </p>
        <p class="muted">{lines.length === 0 ? 'Sin productos' : `${lines.length} ${lines.length === 1 ? 'línea' : 'líneas'}`}</p>
        <button type="button" class="register-pay" onClick={onPay} disabled={lines.length === 0}>
          Cobrar (F4)
        </button>
        <button type="button" class="secondary" onClick={onClear} disabled={lines.length === 0}>
          Anular venta (F8)
        </button>
        <p class="hint">F2 buscar · Enter agrega · ↑↓ elegir · +/− cantidad · Supr quitar</p>
      </aside>
    </div>
  );
}
