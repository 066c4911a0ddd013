import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, errorText, messageFor } from './api.ts';
import { formatCount, formatCountOf } from '../../lib/format.ts';
import { TableWrap } from './layout.tsx';

/** The report every spreadsheet import answers with (src/lib/spreadsheet.ts); products add stock_adjusted. */
export interface ImportAnswer {
  created: number;
  updated: number;
  unchanged: number;
  stock_adjusted?: number;
  errors: { line: number; column: string | null; message: string }[];
  dry_run: boolean;
  ignored_columns: string[];
}

/**
 * Choose a CSV, "Revisar" (a dry run: what would change and every bad row by line and column),
 * then "Importar". Shared by Productos and Clientes; `query` holds the import's own parameters
 * (a new one forgets the previous review), `children` their fields.
 */
export function SpreadsheetImport({
  url,
  query = {},
  onImported,
  children,
}: {
  url: string;
  query?: Record<string, string>;
  onImported: () => void;
  children?: ComponentChildren;
}) {
  const [file, setFile] = useState<File | null>(null);
  const [answer, setAnswer] = useState<ImportAnswer | null>(null);
  const [problem, setProblem] = useState('');
  const queryKey = JSON.stringify(query);
  useEffect(() => setAnswer(null), [queryKey]);
  async function send(dryRun: boolean) {
    if (!file) return;
    try {
      const res = await fetch(`${url}?${new URLSearchParams({ dry_run: String(dryRun), ...query })}`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'text/csv', accept: 'application/json' },
        body: await file.arrayBuffer(),
      });
      const data = await res.json();
      if (!res.ok) throw new ApiError(messageFor(res.status, data), res.status, data?.code ?? null, data);
      setProblem('');
      setAnswer(data as ImportAnswer);
      if (!dryRun) onImported();
    } catch (err) {
      setProblem(err instanceof ApiError ? `No se pudo leer la planilla: ${err.message}` : errorText(err));
    }
  }
  return (
    <div id="import">
      {children}
      <div class="row">
        <label for="import-file" class="visually-hidden">
          Planilla
        </label>
        <input
          id="import-file"
          type="file"
          accept=".csv,text/csv"
          onChange={(e) => {
            const chosen = (e.target as HTMLInputElement).files?.[0] ?? null;
            setFile(chosen);
            setAnswer(null);
          }}
        />
        <button type="button" class="secondary" disabled={!file} onClick={() => void send(true)}>
          Revisar
        </button>
      </div>
      {problem ? <p class="error-text">{problem}</p> : null}
      {answer ? (
        <div data-import-result>
          <p>
            {answer.dry_run ? 'Si la importás: ' : 'Listo: '}
            {formatCountOf(answer.created, 'nuevo', 'nuevos')}, {formatCountOf(answer.updated, 'actualizado', 'actualizados')},{' '}
            {formatCount(answer.unchanged)} sin cambios
            {answer.stock_adjusted ? `, ${formatCount(answer.stock_adjusted)} con ajuste de stock` : ''}
            {answer.errors.length > 0
              ? `, ${formatCountOf(answer.errors.length, 'fila con errores (se saltea)', 'filas con errores (se saltean)')}`
              : ''}
            .
          </p>
          {answer.errors.length > 0 ? (
            <TableWrap id="import-errors">
              <thead>
                <tr>
                  <th>Línea</th>
                  <th>Columna</th>
                  <th>Problema</th>
                </tr>
              </thead>
              <tbody>
                {answer.errors.map((e) => (
                  <tr key={`${e.line}-${e.column}`}>
                    <td>{e.line}</td>
                    <td>{e.column ?? '—'}</td>
                    <td>{e.message}</td>
                  </tr>
                ))}
              </tbody>
            </TableWrap>
          ) : null}
          {answer.dry_run && answer.created + answer.updated > 0 ? (
            <button type="button" data-import-apply onClick={() => void send(false)}>
              Importar
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
