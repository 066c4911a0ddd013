import { useEffect, useState } from 'preact/hooks';
import { formatCount, formatCountOf, formatDate } from '../../lib/format.ts';
import { formatPesos } from '../../lib/money.ts';
import { api, errorText } from '../ui/api.ts';
import { Card, PageTitle, TableWrap } from '../ui/layout.tsx';
import { mountPage } from '../ui/page-data.ts';

interface Amounts {
  net: number;
  iva: number;
  exempt: number;
  untaxed: number;
  total: number;
}
/** GET /api/v1/fiscal/libro-iva-ventas (src/modules/reports/reports.schemas.ts LibroIva). */
interface Book {
  period: string;
  iva_condition: string;
  environment: string;
  receipts: (Amounts & {
    id: number;
    date: string;
    code: number;
    type_name: string;
    point_of_sale: number;
    number: number;
    doc_type: number;
    doc_number: string | null;
    name: string;
  })[];
  by_type: (Amounts & { code: number; type_name: string; count: number })[];
  by_rate: { id: number; rate: string; base: number; iva: number; credit_base: number; credit_iva: number }[];
  skipped: { id: number; receipt: string; reason: string }[];
}

const DOCS: Record<number, string> = { 80: 'CUIT', 86: 'CUIL', 96: 'DNI' };

/** Last month as YYYY-MM (the one an accountant loads). */
function lastMonth(): string {
  const now = new Date();
  const at = new Date(now.getFullYear(), now.getMonth() - 1, 1);
  return `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, '0')}`;
}

const receiptNumber = (pos: number, n: number) => `${String(pos).padStart(5, '0')}-${String(n).padStart(8, '0')}`;

function AmountCells({ a }: { a: Amounts }) {
  return (
    <>
      <td class="num" data-label="Neto gravado">
        {formatPesos(a.net)}
      </td>
      <td class="num" data-label="IVA">
        {formatPesos(a.iva)}
      </td>
      <td class="num" data-label="Exento / no gravado">
        {formatPesos(a.exempt + a.untaxed)}
      </td>
      <td class="num" data-label="Total">
        {formatPesos(a.total)}
      </td>
    </>
  );
}

const AMOUNT_HEADS = (
  <>
    <th class="num">Neto gravado</th>
    <th class="num">IVA</th>
    <th class="num">Exento / no gravado</th>
    <th class="num">Total</th>
  </>
);

function Totals({ book }: { book: Book }) {
  return (
    // One card under the other: side by side, each half-width table cut its last columns on a desktop.
    <>
      <Card title="Totales por tipo de comprobante" id="book-by-type">
        <TableWrap stack>
          <thead>
            <tr>
              <th>Tipo</th>
              <th class="num">Cantidad</th>
              {AMOUNT_HEADS}
            </tr>
          </thead>
          <tbody>
            {book.by_type.map((t) => (
              <tr key={t.code}>
                <td>{t.type_name}</td>
                <td class="num" data-label="Cantidad">
                  {formatCount(t.count)}
                </td>
                <AmountCells a={t} />
              </tr>
            ))}
          </tbody>
        </TableWrap>
      </Card>
      <Card title="Totales por alícuota" id="book-by-rate">
        <TableWrap stack>
          <thead>
            <tr>
              <th>Alícuota</th>
              <th class="num">Neto (facturas)</th>
              <th class="num">IVA (facturas)</th>
              <th class="num">Neto (notas de crédito)</th>
              <th class="num">IVA (notas de crédito)</th>
            </tr>
          </thead>
          <tbody>
            {book.by_rate.map((r) => (
              <tr key={r.id}>
                <td>{r.rate}</td>
                <td class="num" data-label="Neto (facturas)">
                  {formatPesos(r.base)}
                </td>
                <td class="num" data-label="IVA (facturas)">
                  {formatPesos(r.iva)}
                </td>
                <td class="num" data-label="Neto (notas de crédito)">
                  {formatPesos(r.credit_base)}
                </td>
                <td class="num" data-label="IVA (notas de crédito)">
                  {formatPesos(r.credit_iva)}
                </td>
              </tr>
            ))}
          </tbody>
        </TableWrap>
      </Card>
    </>
  );
}

function LibroIva() {
  const [month, setMonth] = useState(lastMonth);
  const [book, setBook] = useState<Book | null>(null);
  const [error, setError] = useState<string | null>(null);
  const period = month.replace('-', '');
  useEffect(() => {
    setBook(null);
    setError(null);
    api<Book>('GET', `/api/v1/fiscal/libro-iva-ventas?period=${period}`).then(setBook, (err) => setError(errorText(err)));
  }, [period]);
  const file = (which: string) => `/api/v1/fiscal/libro-iva-ventas?period=${period}&file=${which}`;
  return (
    <>
      <PageTitle lead="Los comprobantes con CAE del mes, como los pide el Libro IVA Digital de ARCA. Descargá los dos archivos y subilos (o pasáselos a tu contador) en «Libro IVA Digital → Ventas → Importar».">
        Libro IVA Ventas
      </PageTitle>
      <Card>
        <div class="row no-print">
          <label>
            Mes{' '}
            <input type="month" value={month} required onInput={(e) => setMonth((e.target as HTMLInputElement).value || month)} />
          </label>
          <a class="button" href={file('cbte')} download>
            Comprobantes (VENTAS_CBTE)
          </a>
          <a class="button" href={file('alicuotas')} download>
            Alícuotas (VENTAS_ALICUOTAS)
          </a>
          <button type="button" class="secondary" onClick={() => window.print()}>
            Imprimir
          </button>
        </div>
        <p class="muted">
          Son dos archivos de texto por separado (no un .zip): ARCA los importa uno por uno. Ver la ayuda en{' '}
          <a href="/docs/libro-iva">Libro IVA Digital</a>.
        </p>
        {book?.iva_condition === 'monotributo' ? (
          <p class="notice">
            Como monotributista no tenés que presentar el Libro IVA Digital; el detalle queda igual para tu control.
          </p>
        ) : null}
        {book?.environment === 'homologacion' ? (
          <p class="notice">Tu facturación está en homologación (pruebas): estos comprobantes no tienen validez fiscal.</p>
        ) : null}
      </Card>
      {error ? (
        <p class="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
      {!book ? (
        error ? null : (
          <p class="muted">Cargando…</p>
        )
      ) : (
        <>
          {book.skipped.length > 0 ? (
            <p class="notice notice-error" role="alert">
              {formatCountOf(
                book.skipped.length,
                'comprobante recibido por la integración no entra',
                'comprobantes recibidos por la integración no entran',
              )}{' '}
              en los archivos porque no se puede desglosar su IVA: {book.skipped.map((s) => s.receipt).join(', ')}.
            </p>
          ) : null}
          {/* A month with no receipt has no totals: two empty cards said nothing the list below does not. */}
          {book.by_type.length > 0 ? <Totals book={book} /> : null}
          <Card title={`Comprobantes (${formatCount(book.receipts.length)})`} id="book-receipts">
            {book.receipts.length === 0 ? (
              <p class="muted">No hay comprobantes con CAE en este mes.</p>
            ) : (
              <TableWrap stack>
                <thead>
                  <tr>
                    <th>Fecha</th>
                    <th>Comprobante</th>
                    <th>Comprador</th>
                    {AMOUNT_HEADS}
                  </tr>
                </thead>
                <tbody>
                  {book.receipts.map((r) => (
                    <tr key={r.id}>
                      <td>{formatDate(r.date)}</td>
                      <td>
                        <a href={`/facturas/${r.id}`}>
                          {r.type_name} {receiptNumber(r.point_of_sale, r.number)}
                        </a>
                      </td>
                      <td>
                        {r.name}
                        {r.doc_number ? (
                          <span class="muted">
                            {' '}
                            ({DOCS[r.doc_type] ?? 'Doc.'} {r.doc_number})
                          </span>
                        ) : null}
                      </td>
                      <AmountCells a={r} />
                    </tr>
                  ))}
                </tbody>
              </TableWrap>
            )}
          </Card>
        </>
      )}
    </>
  );
}

mountPage<Record<string, never>>(() => <LibroIva />);
