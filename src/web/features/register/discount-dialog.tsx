import { useEffect, useRef, useState } from 'preact/hooks';
import { formatArs, formatDecimal, parseCents, parseDecimal } from '../../../lib/money.ts';
import { discountOff } from './sale-state.ts';
import type { Discount } from './types.ts';

/** A percentage as the cashier types it ("10", "12,5") in hundredths, or null. */
function parsePercent(text: string): number | null {
  const value = parseDecimal(text.trim());
  if (value === null || !/^\d+(\.\d{1,2})?$/.test(value)) return null;
  const hundredths = Math.round(Number(value) * 100);
  return hundredths > 0 && hundredths <= 10_000 ? hundredths : null;
}

/**
 * A discount on a line or on the whole sale: percentage or amount, and why (required). It shows
 * what it takes off and, for a cashier, whether it goes beyond the company's limit (an admin
 * approves it when charging).
 */
export function DiscountDialog({
  title,
  baseCents,
  initial,
  limitPercent,
  beyondLimit,
  onSave,
  onCancel,
}: {
  title: string;
  baseCents: number;
  initial: Discount | null;
  /** The cashier's limit; null for an admin (no limit). */
  limitPercent: number | null;
  /** Whether the sale, with this discount, goes beyond the limit (all its discounts together). */
  beyondLimit: (discount: Discount) => boolean;
  onSave: (discount: Discount | null) => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const valueRef = useRef<HTMLInputElement>(null);
  const [kind, setKind] = useState<Discount['kind']>(initial?.kind ?? 'percent');
  const [value, setValue] = useState(initial ? formatDecimal(initial.value, 2, { grouping: false }).replace(/,00$/, '') : '');
  const [reason, setReason] = useState(initial?.reason ?? '');
  const [error, setError] = useState<{ field: 'value' | 'reason'; text: string } | null>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    valueRef.current?.focus();
  }, []);

  const parsed = kind === 'percent' ? parsePercent(value) : parseCents(value.trim());
  const draft: Discount | null = parsed !== null && parsed > 0 ? { kind, value: parsed, reason: reason.trim() } : null;
  const off = draft ? discountOff(draft, baseCents) : null;
  const beyond = limitPercent !== null && off !== null && draft !== null && beyondLimit(draft);

  function save(e: Event) {
    e.preventDefault();
    if (!draft) {
      setError({
        field: 'value',
        text: kind === 'percent' ? 'Escribí un porcentaje entre 0,01 y 100.' : 'Escribí el monto, por ejemplo 500 o 1.250,50.',
      });
      return;
    }
    if (off === null) {
      setError({ field: 'value', text: `El descuento no puede ser mayor que ${formatArs(baseCents)}.` });
      return;
    }
    if (draft.reason === '') {
      setError({ field: 'reason', text: 'Escribí el motivo del descuento.' });
      return;
    }
    onSave(draft);
  }

  return (
    <dialog
      ref={ref}
      class="confirm discount-dialog"
      aria-labelledby="discount-title"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <form onSubmit={save}>
        <h2 id="discount-title">{title}</h2>
        <p class="muted">
          Sobre <span class="money">{formatArs(baseCents)}</span>
        </p>
        <fieldset class="row discount-kind">
          <legend class="visually-hidden">Tipo de descuento</legend>
          <label>
            <input type="radio" name="discount-kind" checked={kind === 'percent'} onChange={() => setKind('percent')} />
            Porcentaje (%)
          </label>
          <label>
            <input type="radio" name="discount-kind" checked={kind === 'amount'} onChange={() => setKind('amount')} />
            Monto ($)
          </label>
        </fieldset>
        <label for="discount-value">{kind === 'percent' ? 'Porcentaje' : 'Monto'}</label>
        <input
          id="discount-value"
          ref={valueRef}
          inputMode="decimal"
          autoComplete="off"
          value={value}
          aria-invalid={error?.field === 'value' ? 'true' : undefined}
          aria-describedby="discount-value-error"
          onInput={(e) => {
            setValue((e.target as HTMLInputElement).value);
            setError(null);
          }}
        />
        {error?.field === 'value' ? (
          <p class="field-error" id="discount-value-error" role="alert">
            {error.text}
          </p>
        ) : null}
        <label for="discount-reason">Motivo</label>
        <input
          id="discount-reason"
          maxLength={200}
          autoComplete="off"
          placeholder="Cliente frecuente, producto con falla…"
          value={reason}
          aria-invalid={error?.field === 'reason' ? 'true' : undefined}
          aria-describedby="discount-reason-error"
          onInput={(e) => {
            setReason((e.target as HTMLInputElement).value);
            setError(null);
          }}
        />
        {error?.field === 'reason' ? (
          <p class="field-error" id="discount-reason-error" role="alert">
            {error.text}
          </p>
        ) : null}
        {off !== null && draft ? (
          <p id="discount-preview">
            Descuenta <strong class="money">{formatArs(off)}</strong>
          </p>
        ) : null}
        {off !== null && draft && beyond ? (
          <p class="discount-warning" id="discount-beyond" role="status">
            Supera el límite de {String(limitPercent).replace('.', ',')}&nbsp;% para cajeros: al cobrar lo aprueba un
            administrador.
          </p>
        ) : null}
        <div class="row end">
          {initial ? (
            <button type="button" class="secondary" onClick={() => onSave(null)} id="discount-remove">
              Quitar descuento
            </button>
          ) : null}
          <button type="button" class="secondary" onClick={onCancel}>
            Cancelar
          </button>
          <button type="submit" id="discount-apply">
            Aplicar
          </button>
        </div>
      </form>
    </dialog>
  );
}
