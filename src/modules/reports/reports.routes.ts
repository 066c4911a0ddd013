import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import { errorResponses } from '../../http/error-body.schema.ts';
import { companyCtx } from '../../http/request-context.ts';
import type { LibroIvaService } from './libro-iva.service.ts';
import { latin1 } from './libro-iva.ts';
import { REPORT_NAMES } from './report-tables.ts';
import { reportCsv } from './reports.csv.ts';
import { Home, LibroIva, LibroIvaQuery, Report, ReportQuery } from './reports.schemas.ts';
import type { ReportsService } from './reports.service.ts';

const TAGS = ['Reportes'];
const REPORT_ERRORS = errorResponses({
  400: 'A date that is not a calendar day (yyyy-mm-dd), or an id that is not a number',
  401: 'No API token or session',
  403: 'Not allowed for this caller',
  404: 'The deposit or box is not one of this company',
  422: 'A day that does not exist, from after to, or more than 366 days',
});

const SUMMARIES: Record<(typeof REPORT_NAMES)[number], string> = {
  sales: 'Sales per local day: tickets, total, average ticket',
  products: 'Sales per product: quantity, tickets, total, share',
  categories: 'Sales per category',
  brands: 'Sales per brand',
  cashiers: 'Sales per person who sold (integration sales as one group)',
  payments: 'Payments per method of the sales in the range, and what is still pending',
  margins: "Gross margin per product at the product's current cost, and the sales without a cost",
  'stock-valuation': "Today's stock per deposit valued at cost and at sale price (the range does not apply)",
  movements: 'Stock movements per product: in, out, adjustments, transfers',
};

/** Reports (GET /api/v1/reports/…), their CSV, Inicio's figures and the Libro IVA Digital (ventas). */
export function registerReportsRoutes(app: App, { reports, libroIva }: { reports: ReportsService; libroIva: LibroIvaService }) {
  app.get(
    '/api/v1/reports/home',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: 'Inicio: today against the same weekday last week, the month so far, and what needs attention',
        response: { 200: Home, ...errorResponses({ 401: 'No API token or session', 403: 'Not allowed for this caller' }) },
      },
    },
    async (request) => reports.home(companyCtx(request.ctx)),
  );

  for (const name of REPORT_NAMES) {
    app.get(
      `/api/v1/reports/${name}`,
      {
        config: { access: 'read' },
        schema: { tags: TAGS, summary: SUMMARIES[name], querystring: ReportQuery, response: { 200: Report, ...REPORT_ERRORS } },
      },
      async (request) => reports.report(companyCtx(request.ctx), name, request.query),
    );
    app.get(
      `/api/v1/reports/${name}.csv`,
      {
        config: { access: 'read' },
        schema: {
          tags: TAGS,
          summary: `${SUMMARIES[name]}, as CSV for Excel (; separated, decimal comma, UTF-8 with BOM)`,
          querystring: ReportQuery,
          response: {
            200: {
              description: 'The report table with Spanish headers and a Total line',
              content: { 'text/csv': { schema: Type.String() } },
            },
            ...REPORT_ERRORS,
          },
        },
      },
      async (request, reply) => {
        const report = await reports.report(companyCtx(request.ctx), name, request.query);
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="reporte-${name}-${report.from}-a-${report.to}.csv"`)
          .send(reportCsv(report));
      },
    );
  }

  app.get(
    '/api/v1/fiscal/libro-iva-ventas',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: 'Libro IVA Digital — ventas of a month: the book as JSON, or one of its two import files (?file=cbte|alicuotas)',
        querystring: LibroIvaQuery,
        response: {
          200: {
            description: 'The book (JSON), or with `file` the VENTAS_CBTE or VENTAS_ALICUOTAS fixed-width file, ISO-8859-1, CRLF',
            content: { 'application/json': { schema: LibroIva }, 'text/plain': { schema: Type.String() } },
          },
          ...errorResponses({
            400: 'A period that is not YYYYMM',
            401: 'No API token or session',
            403: 'Not allowed for this caller',
            422: 'A month that does not exist',
          }),
        },
      },
    },
    async (request, reply) => {
      const ctx = companyCtx(request.ctx);
      const { period, file } = request.query;
      if (!file) return reply.type('application/json').send(await libroIva.show(ctx, period));
      const out = await libroIva.file(ctx, period, file);
      return (
        reply
          .header('content-type', 'text/plain; charset=ISO-8859-1')
          .header('content-disposition', `attachment; filename="${out.name}"`)
          // Bytes, not a string: a string would go out as UTF-8 (the typed reply only knows the schema's string).
          .send(latin1(out.text) as unknown as string)
      );
    },
  );
}
