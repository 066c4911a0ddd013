import { MONEY_METHODS } from './methods.ts';

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
