import type { ComponentChildren } from 'preact';

/** A white card: one subject of a page. */
export function Card({
  title,
  id,
  children,
  actions,
}: {
  title?: string;
  id?: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <section class="card" id={id}>
      {title || actions ? (
        <div class="card-head">
          {title ? <h2>{title}</h2> : null}
          {actions ? <div class="row">{actions}</div> : null}
        </div>
      ) : null}
      {children}
    </section>
  );
}

export function PageTitle({ children, lead }: { children: ComponentChildren; lead?: ComponentChildren }) {
  return (
    <div class="page-title">
      <h1>{children}</h1>
      {lead ? <p class="muted">{lead}</p> : null}
    </div>
  );
}

/**
 * A table that scrolls sideways when it is wider than its card. `stack`: on a phone each row is a
 * block of its cells, each with the column's name (`data-label`), instead of columns cut off.
 */
export function TableWrap({ children, id, stack }: { children: ComponentChildren; id?: string; stack?: boolean }) {
  return (
    <div class={stack ? 'table-wrap stack' : 'table-wrap'}>
      <table id={id}>{children}</table>
    </div>
  );
}

export interface PagerProps {
  from: number;
  to: number;
  total: number;
  onPrevious?: (() => void) | null;
  onNext?: (() => void) | null;
}

/** "Mostrando 1–50 de 120" with the previous and next buttons when there are such pages. */
export function Pager({ from, to, total, onPrevious, onNext }: PagerProps) {
  return (
    <p class="row muted pager">
      <span>
        Mostrando {total === 0 ? 0 : from}–{to} de {total}
      </span>
      {onPrevious ? (
        <button type="button" class="secondary" onClick={onPrevious}>
          ← Anteriores
        </button>
      ) : null}
      {onNext ? (
        <button type="button" class="secondary" onClick={onNext}>
          Siguientes →
        </button>
      ) : null}
    </p>
  );
}
