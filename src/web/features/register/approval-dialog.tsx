import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * An admin approves, on the cashier's screen, discounts beyond the company's limit or money a
 * cashier gives back: their email and password go with the request (checked by the server, never kept by the register). A refusal is
 * shown here, next to the fields.
 */
export function ApprovalDialog({
  summary,
  error,
  busy,
  onApprove,
  onCancel,
  confirmLabel = 'Aprobar y cobrar',
}: {
  summary: string;
  /** The confirm button: "Aprobar y cobrar" for a sale, "Aprobar y devolver" for a refund. */
  confirmLabel?: string;
  error: string | null;
  busy: boolean;
  onApprove: (email: string, password: string) => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    emailRef.current?.focus();
  }, []);
  return (
    <dialog
      ref={ref}
      class="confirm approval-dialog"
      aria-labelledby="approval-title"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!busy && email.trim() !== '' && password !== '') onApprove(email.trim(), password);
        }}
      >
        <h2 id="approval-title">Aprobación de un administrador</h2>
        <p>{summary}</p>
        <label for="approval-email">Email del administrador</label>
        <input
          id="approval-email"
          ref={emailRef}
          type="email"
          autoComplete="off"
          required
          value={email}
          onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
        />
        <label for="approval-password">Contraseña</label>
        <input
          id="approval-password"
          type="password"
          autoComplete="off"
          required
          value={password}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby="approval-error"
          onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
        />
        {error ? (
          <p class="field-error" id="approval-error" role="alert">
            {error}
          </p>
        ) : null}
        <div class="row end">
          <button type="button" class="secondary" onClick={onCancel}>
            Cancelar
          </button>
          <button type="submit" id="approval-confirm" disabled={busy}>
            {busy ? 'Aprobando…' : confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
