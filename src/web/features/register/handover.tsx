import { useState } from 'preact/hooks';
import { parseCents } from '../../../lib/money.ts';
import { api, errorText } from '../../ui/api.ts';
import { CountGrid, parseCount } from './count-grid.tsx';
import { METHODS } from './methods.ts';

/**
 * The box has another person's shift open: to sell, the newcomer takes over. The outgoing shift
 * closes with what is counted now (per method), and the newcomer's opens with their own count.
 */
export function Handover({
  sessionId,
  boxName,
  owner,
  onDone,
  onOtherBox,
}: {
  sessionId: number;
  boxName: string;
  owner: string;
  onDone: (newSessionId: number) => void;
  onOtherBox: (() => void) | null;
}) {
  const [counted, setCounted] = useState<Record<string, string>>({});
  const [opening, setOpening] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit() {
    const values: Record<string, number> = {};
    for (const m of METHODS) {
      const text = counted[m.id]?.trim() ?? '';
      if (text === '') continue;
      const cents = parseCount(m.id, text);
      if (cents === null) {
        setError(
          `El monto de ${m.label} no es válido: escribí por ejemplo 5000 o 5.000,50${m.id === 'efectivo' ? '' : ' (con - adelante si devolviste más de lo que cobraste)'}.`,
        );
        return;
      }
      values[m.id] = cents / 100;
    }
    const openingText = opening.trim() === '' ? (counted['efectivo']?.trim() ?? '0') : opening.trim();
    const openingCents = parseCents(openingText === '' ? '0' : openingText);
    if (openingCents === null) {
      setError('Tu efectivo inicial no es válido: escribí por ejemplo 5000 o 5.000,50.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const { session } = await api<{ session: { id: number } }>('POST', `/api/v1/box-sessions/${sessionId}/handover`, {
        body: { counted: values, opening_cash: openingCents / 100, client_id: crypto.randomUUID() },
        messages: { invalid_state: 'Ese turno ya se cerró. Actualizá la página.' },
      });
      onDone(session.id);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="card register-open" id="handover">
      <h1>Relevo en {boxName}</h1>
      <p id="handover-owner">
        {boxName} tiene abierto el turno de <strong>{owner}</strong>. Para vender con tu propio turno, contá lo que hay en la
        caja: ese turno se cierra con esa cuenta y se abre el tuyo.
      </p>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <CountGrid idPrefix="handover" counted={counted} onChange={setCounted} />
        <div class="field">
          <label for="handover-opening">Tu efectivo inicial</label>
          <input
            id="handover-opening"
            inputMode="decimal"
            value={opening}
            placeholder={counted['efectivo']?.trim() || '0'}
            onInput={(e) => setOpening((e.target as HTMLInputElement).value)}
          />
          <p class="hint muted">Si lo dejás vacío, empezás con el efectivo que contaste.</p>
        </div>
        {error ? (
          <p class="error" role="alert" id="handover-error">
            {error}
          </p>
        ) : null}
        <div class="row">
          {onOtherBox ? (
            <button type="button" class="secondary" onClick={onOtherBox}>
              Usar otra caja
            </button>
          ) : null}
          <button type="submit" disabled={busy} id="handover-confirm">
            Cerrar su turno y abrir el mío
          </button>
        </div>
      </form>
    </section>
  );
}
