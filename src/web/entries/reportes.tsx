import { useState } from 'preact/hooks';
import { type Filters, REPORTS, ReportsTitle, ReportView, reportQuery } from '../features/reports/reports.tsx';
import { DateInput } from '../ui/form.tsx';
import { Card } from '../ui/layout.tsx';
import { mountPage } from '../ui/page-data.ts';

interface Scope {
  id: number;
  name: string;
}

/** The filters from the address (?reporte=&desde=&hasta=&deposito=&caja=), so a report can be shared or printed. */
function initialFilters(today: string): Filters {
  const q = new URLSearchParams(location.search);
  const report = q.get('reporte') ?? 'sales';
  return {
    report: REPORTS.some((r) => r.name === report) ? report : 'sales',
    from: q.get('desde') ?? `${today.slice(0, 8)}01`,
    to: q.get('hasta') ?? today,
    deposit: q.get('deposito') ?? '',
    box: q.get('caja') ?? '',
  };
}

function Reports({ deposits, boxes, today }: { deposits: Scope[]; boxes: Scope[]; today: string }) {
  const [filters, setFilters] = useState(() => initialFilters(today));
  const [draft, setDraft] = useState(filters);
  const apply = (next: Filters) => {
    setFilters(next);
    setDraft(next);
    const q = new URLSearchParams({ reporte: next.report, desde: next.from, hasta: next.to });
    if (next.deposit) q.set('deposito', next.deposit);
    if (next.box) q.set('caja', next.box);
    history.replaceState(null, '', `?${q}`);
  };
  const stock = draft.report === 'stock-valuation' || draft.report === 'movements';
  return (
    <>
      <ReportsTitle />
      <Card>
        <form
          class="report-filters no-print"
          onSubmit={(e) => {
            e.preventDefault();
            apply(draft);
          }}
        >
          <label>
            Reporte
            <select
              value={draft.report}
              onChange={(e) => apply({ ...draft, report: (e.target as HTMLSelectElement).value })}
              id="report-name"
            >
              {REPORTS.map((r) => (
                <option key={r.name} value={r.name}>
                  {r.label}
                </option>
              ))}
            </select>
          </label>
          <label for="report-from">
            Desde
            <DateInput id="report-from" value={draft.from} required onValue={(from) => setDraft((d) => ({ ...d, from }))} />
          </label>
          <label for="report-to">
            Hasta
            <DateInput id="report-to" value={draft.to} required onValue={(to) => setDraft((d) => ({ ...d, to }))} />
          </label>
          {deposits.length > 1 ? (
            <label>
              Depósito
              <select
                value={draft.deposit}
                onChange={(e) => setDraft({ ...draft, deposit: (e.target as HTMLSelectElement).value })}
              >
                <option value="">Todos</option>
                {deposits.map((d) => (
                  <option key={d.id} value={d.id}>
                    {d.name}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          {boxes.length > 1 && !stock ? (
            <label>
              Caja
              <select value={draft.box} onChange={(e) => setDraft({ ...draft, box: (e.target as HTMLSelectElement).value })}>
                <option value="">Todas</option>
                {boxes.map((b) => (
                  <option key={b.id} value={b.id}>
                    {b.name}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          <div class="row">
            <button type="submit">Ver</button>
            <a class="button secondary" href={`/api/v1/reports/${filters.report}.csv?${reportQuery(filters)}`} download>
              Descargar CSV
            </a>
            <button type="button" class="secondary" onClick={() => window.print()}>
              Imprimir
            </button>
          </div>
        </form>
      </Card>
      <ReportView filters={filters} />
    </>
  );
}

mountPage<{ deposits: Scope[]; boxes: Scope[]; today: string }>((data) => <Reports {...data} />);
