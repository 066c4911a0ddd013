import { useEffect, useState } from 'preact/hooks';
import { formatDateTime } from '../../../lib/format.ts';
import { formatPesos } from '../../../lib/money.ts';
import { api, errorText } from '../../ui/api.ts';
import { Card, PageTitle, TableWrap } from '../../ui/layout.tsx';
import { CloseReport, differenceSummary, type SessionReport } from './close.tsx';

/** Cierres de caja: every session with what was expected, counted and the difference. */
export function Closes({ boxes, company }: { boxes: { id: number; name: string }[]; company: { name: string } }) {
  const [boxId, setBoxId] = useState('');
  const [personId, setPersonId] = useState('');
  const [people, setPeople] = useState<Map<number, string>>(new Map());
  const [sessions, setSessions] = useState<SessionReport[] | null>(null);
  const [open, setOpen] = useState<SessionReport | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    setSessions(null);
    api<{ sessions: SessionReport[] }>(
      'GET',
      `/api/v1/box-sessions?limit=50${boxId ? `&box_id=${boxId}` : ''}${personId ? `&user_id=${personId}` : ''}`,
    )
      .then((r) => {
        setSessions(r.sessions);
        // The people seen so far stay in the filter (it narrows the list, not its own options).
        setPeople((known) => {
          const next = new Map(known);
          for (const s of r.sessions)
            if (s.session.user_id) next.set(s.session.user_id, s.session.user_name ?? s.session.opened_by);
          return next;
        });
      })
      .catch((err) => setError(errorText(err)));
  }, [boxId, personId]);

  return (
    <>
      <PageTitle lead="Cada turno de caja con lo esperado, lo contado y la diferencia por medio de pago.">
        Cierres de caja
      </PageTitle>
      {error ? (
        <p class="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
      <Card
        title="Turnos"
        actions={
          <>
            {people.size > 1 || personId ? (
              <select
                aria-label="Persona"
                id="closes-person"
                value={personId}
                onChange={(e) => setPersonId((e.target as HTMLSelectElement).value)}
              >
                <option value="">Todas las personas</option>
                {[...people].map(([id, name]) => (
                  <option key={id} value={id}>
                    {name}
                  </option>
                ))}
              </select>
            ) : null}
            {boxes.length > 1 ? (
              <select aria-label="Caja" value={boxId} onChange={(e) => setBoxId((e.target as HTMLSelectElement).value)}>
                <option value="">Todas las cajas</option>
                {boxes.map((b) => (
                  <option key={b.id} value={b.id}>
                    {b.name}
                  </option>
                ))}
              </select>
            ) : null}
          </>
        }
      >
        {sessions === null ? (
          <p class="muted">Cargando…</p>
        ) : sessions.length === 0 ? (
          <p class="muted">Todavía no hay turnos de caja.</p>
        ) : (
          <TableWrap id="closes" stack>
            <thead>
              <tr>
                <th>Turno</th>
                <th>Caja</th>
                <th>Persona</th>
                <th>Apertura</th>
                <th>Cierre</th>
                <th class="num">Ventas</th>
                <th class="num">Diferencia</th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((r) => {
                const diff = differenceSummary(r, 'OK');
                return (
                  <tr key={r.session.id} class={open?.session.id === r.session.id ? 'selected' : ''}>
                    <td>
                      <button type="button" class="link" onClick={() => setOpen(r)}>
                        N.º {r.session.id}
                      </button>
                    </td>
                    <td data-label="Caja">{r.session.box_name}</td>
                    <td data-label="Persona">{r.session.user_name ?? r.session.opened_by}</td>
                    <td data-label="Apertura">{formatDateTime(r.session.opened_at)}</td>
                    <td data-label="Cierre">
                      {r.session.closed_at ? formatDateTime(r.session.closed_at) : <span class="badge ok">abierta</span>}
                    </td>
                    <td data-label="Ventas" class="num">
                      {r.sales.count} · {formatPesos(r.sales.total)}
                    </td>
                    <td data-label="Diferencia" class={`num ${diff.tone}`}>
                      {diff.text}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </TableWrap>
        )}
      </Card>
      {open ? <CloseReport report={open} company={company} /> : null}
    </>
  );
}
