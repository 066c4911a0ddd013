import { useState } from 'preact/hooks';
import { formatArs, parseCents } from '../../../lib/money.ts';
import { api, errorText } from '../../ui/api.ts';

/** Cash put into or taken out of the drawer during the session (change brought in, a supplier paid). */
export function CashMove({ sessionId }: { sessionId: number }) {
  const [kind, setKind] = useState<'in' | 'out'>('out');
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  async function save() {
    const value = parseCents(amount);
    if (value === null || value <= 0) {
      setMessage({ ok: false, text: 'Escribí el monto, por ejemplo 5000 o 5.000,50.' });
      return;
    }
    if (!reason.trim()) {
      setMessage({ ok: false, text: 'Escribí el motivo (por ejemplo «cambio» o «pago a proveedor»).' });
      return;
    }
    try {
      await api('POST', `/api/v1/box-sessions/${sessionId}/cash`, { body: { kind, amount: value / 100, reason: reason.trim() } });
      setMessage({
        ok: true,
        text: `${kind === 'in' ? 'Ingreso' : 'Retiro'} de ${formatArs(value)} registrado. Se tiene en cuenta en el cierre.`,
      });
      setAmount('');
      setReason('');
    } catch (err) {
      setMessage({ ok: false, text: errorText(err) });
    }
  }
  return (
    <section class="card register-close">
      <h2>Ingreso o retiro de efectivo</h2>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <div class="row">
          <label class="check">
            <input type="radio" name="cash-kind" checked={kind === 'out'} onChange={() => setKind('out')} /> Retiro
          </label>
          <label class="check">
            <input type="radio" name="cash-kind" checked={kind === 'in'} onChange={() => setKind('in')} /> Ingreso
          </label>
        </div>
        <div class="field">
          <label for="cash-amount">Monto</label>
          <input
            id="cash-amount"
            inputMode="decimal"
            value={amount}
            onInput={(e) => setAmount((e.target as HTMLInputElement).value)}
          />
        </div>
        <div class="field">
          <label for="cash-reason">Motivo</label>
          <input
            id="cash-reason"
            maxLength={200}
            value={reason}
            onInput={(e) => setReason((e.target as HTMLInputElement).value)}
          />
        </div>
        {message ? (
          <p class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'}>
            {message.text}
          </p>
        ) : null}
        <button type="submit" class="secondary" id="cash-save">
          Registrar
        </button>
      </form>
    </section>
  );
}

/** The close report (also printed at 80 mm): expected, counted and the difference per method. */
