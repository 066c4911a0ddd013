import type { ComponentChild, RefObject } from 'preact';
import { formatArs, formatQuantity, fromMilli } from '../../../lib/money.ts';
import { pricedSale, type SaleAction, type SaleState } from './sale-state.ts';
import type { Discount } from './types.ts';

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
  onDiscount,
}: {
  sale: SaleState;
  dispatch: (action: SaleAction) => void;
  input: RefObject<HTMLInputElement | null>;
  notice: ComponentChild;
  onQuery: (text: string) => void;
  onKeyDown: (e: KeyboardEvent) => void;
  onPay: () => void;
  onClear: () => void;
  /** Opens the discount dialog for a line (its index) or the whole sale (null). */
  onDiscount: (index: number | null) => void;
}) {
  const { lines, selected, results, resultIndex } = sale;
  const priced = pricedSale(lines, sale.saleDiscount);
  // An amount or a percentage never splits across lines.
  const discountText = (d: Discount) => (
    <span class="money">
      {d.kind === 'percent' ? `−${String(d.value / 100).replace('.', ',')}\u00a0%` : `−${formatArs(d.value)}`}
    </span>
  );
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
                    <td class="line-name">
                      {l.product.name}
                      {l.scaleLabel ? <span class="muted"> · balanza</span> : null}
                      {l.discount && priced.lines[n]!.discountCents > 0 ? (
                        <span class="line-discount" data-line-discount>
                          {discountText(l.discount)} · {l.discount.reason}
                        </span>
                      ) : null}
                    </td>
                    <td class="num line-qty">{formatQty(l.qtyMilli, l.product.unit)}</td>
                    <td class="num line-price">{formatArs(l.priceCents)}</td>
                    <td class="num line-subtotal">
                      {priced.lines[n]!.discountCents > 0 ? (
                        <>
                          <s class="muted">{formatArs(l.subtotalCents)}</s>{' '}
                        </>
                      ) : null}
                      {formatArs(l.subtotalCents - priced.lines[n]!.discountCents)}
                    </td>
                    <td class="line-actions">
                      <button
                        type="button"
                        class="secondary"
                        aria-label={`Descuento a ${l.product.name}`}
                        title="Descuento"
                        data-line-discount-button
                        onClick={(e) => {
                          e.stopPropagation();
                          onDiscount(n);
                        }}
                      >
                        %
                      </button>
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
        {priced.discountCents > 0 ? (
          <dl class="register-discounts">
            <dt>Subtotal</dt>
            <dd class="num">{formatArs(priced.grossCents)}</dd>
            <dt>Descuentos</dt>
            <dd class="num" id="register-discount">
              −{formatArs(priced.discountCents)}
            </dd>
          </dl>
        ) : null}
        <p class="register-total-label">Total</p>
        <p class="register-total num" id="register-total">
          {formatArs(priced.totalCents)}
        </p>
        <p class="muted">{lines.length === 0 ? 'Sin productos' : `${lines.length} ${lines.length === 1 ? 'línea' : 'líneas'}`}</p>
        <button type="button" class="register-pay" onClick={onPay} disabled={lines.length === 0}>
          Cobrar<span class="keyboard-hint"> (F4)</span>
        </button>
        <button type="button" class="secondary" id="sale-discount" onClick={() => onDiscount(null)} disabled={lines.length === 0}>
          {sale.saleDiscount && priced.saleDiscountCents > 0 ? (
            <>Descuento a la venta: {discountText(sale.saleDiscount)}</>
          ) : (
            'Descuento a la venta'
          )}
        </button>
        <button type="button" class="secondary" onClick={onClear} disabled={lines.length === 0}>
          Anular venta<span class="keyboard-hint"> (F8)</span>
        </button>
        <p class="hint keyboard-hint">F2 buscar · Enter agrega · ↑↓ elegir · +/− cantidad · Supr quitar</p>
      </aside>
    </div>
  );
}
