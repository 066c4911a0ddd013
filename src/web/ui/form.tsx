import type { ButtonHTMLAttributes, ComponentChildren, InputHTMLAttributes } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatDate, parseTypedDate } from '../../lib/format.ts';

/** A labelled input with an optional hint below it; the label points at the input. */
export function Field({
  id,
  label,
  hint,
  children,
}: {
  id: string;
  label: ComponentChildren;
  hint?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint ? <p class="hint muted">{hint}</p> : null}
    </div>
  );
}

/** A button that shows it is working and cannot be pressed twice while its action runs. */
export function BusyButton({
  busy,
  children,
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { busy: boolean; children: ComponentChildren }) {
  return (
    <button type="button" {...props} disabled={busy || Boolean(props.disabled)} aria-busy={busy}>
      {children}
    </button>
  );
}

/** One labelled field and its button on a line: a small action that takes one value. */
export function InlineForm({
  id,
  label,
  value,
  onValue,
  onSubmit,
  buttonId,
  buttonLabel,
  input = {},
}: {
  id: string;
  label: string;
  value: string;
  onValue: (value: string) => void;
  onSubmit: () => Promise<unknown>;
  buttonId: string;
  buttonLabel: string;
  input?: InputHTMLAttributes<HTMLInputElement>;
}) {
  return (
    <form
      class="row"
      onSubmit={(e) => {
        e.preventDefault();
        void onSubmit();
      }}
    >
      <label for={id}>{label}</label>
      <input {...input} id={id} value={value} onInput={(e) => onValue((e.currentTarget as HTMLInputElement).value)} />
      <button type="submit" class="secondary" id={buttonId}>
        {buttonLabel}
      </button>
    </form>
  );
}

/**
 * A day, written and shown dd/mm/aaaa whatever language the browser is in (a native date input
 * shows mm/dd/yyyy in an English browser), with the browser's calendar one tap away. `value` and
 * `onValue` are calendar dates (aaaa-mm-dd, or '' when empty); what is typed reaches `onValue` once
 * it is a real day, and a day that is not stays marked (aria-invalid) without changing the value.
 */
export function DateInput({
  id,
  value,
  onValue,
  required = false,
  label,
}: {
  id?: string;
  value: string;
  onValue: (value: string) => void;
  required?: boolean;
  /** The accessible name when there is no <label for> (the calendar button says it too). */
  label?: string;
}) {
  const shown = value ? formatDate(value) : '';
  const [text, setText] = useState(shown);
  const picker = useRef<HTMLInputElement>(null);
  // A new value from outside (the calendar, a reset) replaces what is written, unless it is the same day.
  useEffect(() => {
    setText((current) => (parseTypedDate(current) === value ? current : shown));
  }, [value]);
  const invalid = text.trim() === '' ? required : parseTypedDate(text) === null;
  return (
    <span class="date-input">
      <input
        id={id}
        type="text"
        inputMode="numeric"
        autoComplete="off"
        placeholder="dd/mm/aaaa"
        maxLength={10}
        value={text}
        required={required}
        aria-invalid={invalid}
        aria-label={label}
        onInput={(e) => {
          const typed = e.currentTarget.value;
          setText(typed);
          const day = parseTypedDate(typed);
          if (day !== null) onValue(day);
          else if (typed.trim() === '' && !required) onValue('');
        }}
        onBlur={() => {
          const day = parseTypedDate(text);
          if (day !== null) setText(formatDate(day));
        }}
      />
      <button
        type="button"
        class="secondary date-input-calendar"
        aria-label={label ? `${label}: elegir en el calendario` : 'Elegir en el calendario'}
        title="Elegir en el calendario"
        onClick={() => {
          const input = picker.current;
          if (!input) return;
          if (typeof input.showPicker === 'function') {
            try {
              input.showPicker();
              return;
            } catch {
              // Not allowed here (an old browser, a frame): the input itself takes the focus below.
            }
          }
          input.focus();
        }}
      >
        <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
          <path
            fill="currentColor"
            d="M4 0h1v2h6V0h1v2h2a1 1 0 0 1 1 1v11a1 1 0 0 1-1 1H2a1 1 0 0 1-1-1V3a1 1 0 0 1 1-1h2zM2 6v8h12V6zm2 2h2v2H4zm3 0h2v2H7zm3 0h2v2h-2z"
          />
        </svg>
      </button>
      <input
        ref={picker}
        type="date"
        class="date-input-picker"
        tabIndex={-1}
        aria-hidden="true"
        value={value}
        onChange={(e) => {
          const day = e.currentTarget.value;
          if (day) onValue(day);
        }}
      />
    </span>
  );
}
