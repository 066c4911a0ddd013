import { useEffect, useState } from 'preact/hooks';
import { formatPesos, parseCents } from '../../../lib/money.ts';
import { api, errorText } from '../../ui/api.ts';
import { BusyButton, Field } from '../../ui/form.tsx';
import { MONEY_METHODS } from '../register/methods.ts';
import type { RegisterState } from '../register/types.ts';
import type { AccountPaymentWire, AccountSummaryWire } from './types.ts';

/** A shift of the signed-in person that is open now: a payment received at its box counts in it. */
interface OwnShift {
  sessionId: number;
  boxName: string;
}

/** The signed-in person's open shifts (GET /api/v1/register); none when it cannot be read. */
function useOwnShifts(enabled: boolean): OwnShift[] {
  const [shifts, setShifts] = useState<OwnShift[]>([]);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    api<RegisterState>('GET', '/api/v1/register')
      .then((state) => {
        if (!live || state.user_id == null) return;
        setShifts(
          state.boxes
            .filter((b) => b.open_session_id !== null && b.open_session_user_id === state.user_id)
            .map((b) => ({ sessionId: b.open_session_id!, boxName: b.name })),
        );
      })
      .catch(() => {}); // without it the payment is simply outside any shift, as the select says
    return () => {
      live = false;
    };
  }, [enabled]);
  return shifts;
}

/** "Registrar pago": a payment on account, allocated by the server to the oldest open sales. */
export function PaymentForm({
  customerId,
  sessionId,
  onPaid,
}: {
  customerId: number;
  /**
   * An open box session: the payment counts in that shift. Without it the form offers the person's
   * own open shifts (the first one chosen) or "outside the register".
   */
  sessionId?: number | null;
  onPaid: (paid: { payment: AccountPaymentWire; account: AccountSummaryWire }) => void;
}) {
  const [amount, setAmount] = useState('');
  const [method, setMethod] = useState('efectivo');
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const ownShifts = useOwnShifts(sessionId === undefined);
  // '' until the person picks: then the first own shift; 'none': outside any shift.
  const [where, setWhere] = useState('');
  const shiftId = sessionId ?? (where === 'none' ? null : where ? Number(where) : (ownShifts[0]?.sessionId ?? null));

  async function submit(e: Event) {
    e.preventDefault();
    const cents = parseCents(amount);
    if (cents === null || cents <= 0) {
      setError('Escribí un importe mayor que cero, por ejemplo 1500 o 1.500,50.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const paid = await api<{ payment: AccountPaymentWire; account: AccountSummaryWire }>(
        'POST',
        `/api/v1/customers/${customerId}/payments`,
        {
          body: { amount: cents / 100, method, note: note.trim() || null, ...(shiftId ? { session_id: shiftId } : {}) },
          headers: { 'x-idempotency-key': crypto.randomUUID() },
        },
      );
      setAmount('');
      setNote('');
      const covered = paid.payment.allocations.length;
      setDone(
        `Pago de ${formatPesos(paid.payment.amount)} registrado${covered > 0 ? `: se aplicó a ${covered === 1 ? '1 venta' : `${covered} ventas`}` : ''}${paid.payment.unallocated > 0 ? `; quedan ${formatPesos(paid.payment.unallocated)} a favor` : ''}.`,
      );
      onPaid(paid);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  const id = (name: string) => `account-${customerId}-${name}`;
  return (
    <form class="account-payment stack" onSubmit={submit} aria-label="Registrar pago">
      <div class="row">
        <Field id={id('amount')} label="Importe">
          <input
            id={id('amount')}
            inputMode="decimal"
            autoComplete="off"
            value={amount}
            onInput={(e) => setAmount(e.currentTarget.value)}
          />
        </Field>
        <Field id={id('method')} label="Medio">
          <select id={id('method')} value={method} onChange={(e) => setMethod(e.currentTarget.value)}>
            {MONEY_METHODS.map((m) => (
              <option key={m.id} value={m.id}>
                {m.label}
              </option>
            ))}
          </select>
        </Field>
        {sessionId === undefined && ownShifts.length > 0 ? (
          <Field id={id('where')} label="Dónde lo recibís">
            <select
              id={id('where')}
              value={shiftId === null ? 'none' : String(shiftId)}
              onChange={(e) => setWhere(e.currentTarget.value)}
            >
              {ownShifts.map((s) => (
                <option key={s.sessionId} value={String(s.sessionId)}>
                  En {s.boxName} (tu turno N.º {s.sessionId})
                </option>
              ))}
              <option value="none">Fuera de la caja (no cuenta en ningún turno)</option>
            </select>
          </Field>
        ) : null}
        <Field id={id('note')} label="Nota (opcional)">
          <input id={id('note')} maxLength={500} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        </Field>
      </div>
      <div class="row">
        <BusyButton busy={busy} type="submit" id={id('pay')}>
          Registrar pago
        </BusyButton>
      </div>
      {error ? (
        <p class="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
      {done ? (
        <p class="notice notice-ok" role="status">
          {done}
        </p>
      ) : null}
    </form>
  );
}
