import type { ButtonHTMLAttributes, ComponentChildren, InputHTMLAttributes } from 'preact';

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
