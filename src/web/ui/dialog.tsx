import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

interface Question {
  text: string;
  confirmLabel: string;
  danger: boolean;
  resolve: (answer: boolean) => void;
}

/**
 * A confirmation dialog (a real <dialog>: focus stays inside, Escape cancels). `ask` resolves true
 * when the person confirms.
 */
export function useConfirm() {
  const [question, setQuestion] = useState<Question | null>(null);
  const ask = useCallback(
    (text: string, options: { confirmLabel?: string; danger?: boolean } = {}) =>
      new Promise<boolean>((resolve) =>
        setQuestion({ text, confirmLabel: options.confirmLabel ?? 'Confirmar', danger: options.danger ?? false, resolve }),
      ),
    [],
  );
  const answer = (value: boolean) => {
    question?.resolve(value);
    setQuestion(null);
  };
  return { ask, dialog: question ? <ConfirmDialog question={question} onAnswer={answer} /> : null };
}

function ConfirmDialog({ question, onAnswer }: { question: Question; onAnswer: (value: boolean) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      class="confirm"
      onCancel={(e) => {
        e.preventDefault();
        onAnswer(false);
      }}
    >
      <p>{question.text}</p>
      <div class="row end">
        <button type="button" class="secondary" onClick={() => onAnswer(false)}>
          Cancelar
        </button>
        <button type="button" class={question.danger ? 'danger' : ''} data-confirm onClick={() => onAnswer(true)}>
          {question.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
