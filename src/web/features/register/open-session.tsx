import { useEffect, useRef, useState } from 'preact/hooks';
import { parseCents } from '../../../lib/money.ts';
import type { RegisterState } from './types.ts';

/** Opening a shift: which box (when there are several) and the cash it starts with. */
export function OpenSession({
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
      <p class="muted">Contá vos el efectivo con el que empezás tu turno: es tu propia cuenta.</p>
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
                  {b.open_session_id ? ` (turno de ${b.open_session_user_name ?? 'otra persona'})` : ''}
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
