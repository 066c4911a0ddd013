import type { ButtonHTMLAttributes, ComponentChildren } from 'preact';

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
