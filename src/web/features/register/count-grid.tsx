import { parseCents } from '../../../lib/money.ts';
import { MONEY_METHODS } from './methods.ts';

/**
 * A count as typed, in cents, or null when it is not an amount. Cash is 0 or more; another method
 * may be negative ("-400,50"): its statement when the shift refunded more than it took.
 */
export function parseCount(method: string, text: string): number | null {
  const negative = method !== 'efectivo' && /^[-−]/.test(text.trim());
  const cents = parseCents(negative ? text.trim().slice(1) : text);
  return cents === null ? null : negative ? -cents : cents;
}

/** What a person counted in the drawer, one field per method money comes in by (a close, a handover): never cuenta corriente. */
export function CountGrid({
  idPrefix,
  counted,
  onChange,
}: {
  idPrefix: string;
  counted: Record<string, string>;
  onChange: (update: (c: Record<string, string>) => Record<string, string>) => void;
}) {
  return (
    <div class="close-grid">
      {MONEY_METHODS.map((m) => (
        <div class="field" key={m.id}>
          <label for={`${idPrefix}-${m.id}`}>{m.label}</label>
          <input
            id={`${idPrefix}-${m.id}`}
            inputMode="decimal"
            value={counted[m.id] ?? ''}
            placeholder="0"
            onInput={(e) => onChange((c) => ({ ...c, [m.id]: (e.target as HTMLInputElement).value }))}
          />
        </div>
      ))}
    </div>
  );
}
