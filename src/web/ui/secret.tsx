import { useState } from 'preact/hooks';

/** Copies `text` to the clipboard and says so on the button for two seconds. */
export function CopyButton({ text, label = 'Copiar' }: { text: string; label?: string }) {
  const [said, setSaid] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setSaid('Copiado');
    } catch {
      setSaid('Seleccioná y copiá a mano');
    }
    setTimeout(() => setSaid(null), 2000);
  };
  return (
    <button type="button" class="secondary" onClick={copy}>
      {said ?? label}
    </button>
  );
}

/** A secret or an address shown in monospace, wrapping anywhere, with its copy button. */
export function Secret({ id, value }: { id?: string; value: string }) {
  return (
    <p class="row">
      <span class="secret" id={id}>
        {value}
      </span>
      <CopyButton text={value} />
    </p>
  );
}
