import { useEffect, useRef, useState } from 'preact/hooks';
import { formatArs, formatDecimal, parseCents } from '../../../lib/money.ts';
import { CustomerPicker, type PickedCustomer } from './customer-picker.tsx';
import { methodLabel, PAY_METHODS } from './methods.ts';
import { payBalance } from './pay-balance.ts';
import type { Payment } from './types.ts';

/** An amount as the input shows it to be edited: "1234,50". */
const amountText = (cents: number) => formatDecimal(cents, 2, { grouping: false });

/**
 * Charging the sale: one or more payments (Alt+1…6 picks the method), what is left and the change.
 * Only cash can go over what is left. Confirms when the payments cover the total. "Cuenta corriente"
 * asks for the customer (the sale goes to their account).
 */
export function PayDialog({
  totalCents,
  onCancel,
  onConfirm,
}: {
  totalCents: number;
  onCancel: () => void;
  onConfirm: (payments: Payment[], customer: PickedCustomer | null) => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const amountRef = useRef<HTMLInputElement>(null);
  const [payments, setPayments] = useState<Payment[]>([]);
  const [method, setMethod] = useState('efectivo');
  const paid = payments.reduce((s, p) => s + p.cents, 0);
  const remaining = Math.max(0, totalCents - paid);
  const [amount, setAmount] = useState(amountText(remaining));
  const [reference, setReference] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [customer, setCustomer] = useState<PickedCustomer | null>(null);
  const onAccount = method === 'cuenta_corriente' || payments.some((p) => p.method === 'cuenta_corriente');
  const typed = parseCents(amount);
  const balance = payBalance(totalCents, paid, typed, method === 'efectivo');

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
    if (method === 'cuenta_corriente' && !customer) {
      setError('Elegí o creá el cliente para vender a cuenta.');
      return null;
    }
    if (method === 'cuenta_corriente' && customer && !customer.accountEnabled) {
      // The server would refuse it; say why here, where it can still be changed.
      setError('Habilitá su cuenta corriente en su ficha (Clientes) o cobrá con otro medio.');
      return null;
    }
    setError(null);
    const next = [...payments, { method, cents: typed, reference: reference.trim() }];
    setPayments(next);
    setReference('');
    const left = Math.max(0, totalCents - next.reduce((s, p) => s + p.cents, 0));
    setAmount(amountText(left));
    return next;
  }

  function submit() {
    const next = remaining === 0 && payments.length > 0 && (amount.trim() === '' || typed === 0) ? payments : add();
    if (!next) return;
    const sum = next.reduce((s, p) => s + p.cents, 0);
    if (sum >= totalCents) onConfirm(next, onAccount ? customer : null);
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
        {PAY_METHODS.map((m, n) => (
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
          if ((e.target as HTMLElement).id !== 'pay-reference' && e.altKey && n >= 1 && n <= PAY_METHODS.length) {
            e.preventDefault();
            setMethod(PAY_METHODS[n - 1]!.id);
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
        {onAccount ? (
          <CustomerPicker
            picked={customer}
            onPick={(picked) => {
              setCustomer(picked);
              setError(null);
            }}
          />
        ) : null}
        {method !== 'efectivo' && method !== 'cuenta_corriente' ? (
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
        <dl class="facts pay-facts" aria-live="polite">
          {balance.kind === 'short' ? (
            <>
              <dt>Falta</dt>
              <dd id="pay-remaining">{formatArs(balance.cents)}</dd>
            </>
          ) : null}
          {balance.kind === 'change' ? (
            <>
              <dt>Vuelto</dt>
              <dd id="pay-change" class="pay-change">
                {formatArs(balance.cents)}
              </dd>
            </>
          ) : null}
          {balance.kind === 'over_without_cash' ? (
            <>
              <dt>De más</dt>
              <dd id="pay-over">{formatArs(balance.cents)} (solo el efectivo da vuelto)</dd>
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
            Confirmar<span class="keyboard-hint"> (Enter)</span>
          </button>
        </div>
      </form>
    </dialog>
  );
}
