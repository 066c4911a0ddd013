import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import { errorResponses } from '../../http/error-body.schema.ts';
import { companyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { ifNoneMatches } from '../../http/cacheable.ts';
import { AR_TIME_ZONE, formatLocalDateTime } from '../../lib/format.ts';
import { paymentMethodLabel, SALE_SOURCE_LABELS, SALE_STATUS_LABELS } from '../../lib/sale-labels.ts';
import { formatAmount, writeSpreadsheet } from '../../lib/spreadsheet.ts';
import { parseRfc3339 } from '../../lib/time.ts';
import { parseDay } from '../reports/report-range.ts';
import type { Bound } from '../sales/sales.repo.ts';
import type { SaleWire } from '../sales/sales.schemas.ts';
import {
  BoxSession,
  BoxSessionReport,
  CancelBody,
  CashMoveBody,
  ClientIdParams,
  CloseSessionBody,
  HandoverBody,
  HandoverResponse,
  IdParams,
  OpenSessionBody,
  PayBody,
  RegisterSettings,
  RegisterState,
  SaleCreateBody,
  SaleList,
  SaleListQuery,
  SaleResponse,
  SalesSummary,
  SessionListQuery,
  SummaryQuery,
} from './register.schemas.ts';
import type { RegisterService } from './register.service.ts';

const TAGS = ['Caja y ventas'];
const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{8,200}$/;

/**
 * A `from`/`to` of the sales listing: a calendar day (yyyy-mm-dd, in the company's time zone) or an
 * RFC 3339 date-time with its offset, both within years 0001 to 9999 (UTC), as everywhere a date
 * comes in (src/lib/time.ts). `new Date(text)` took anything it could read (`1` was 2001-01-01 on the
 * server's clock, `2024-02-30T00:00:00Z` was March 1st) and years past 9999, which it writes as
 * `+010000-…`, a text PostgreSQL does not read: a 500.
 */
function bound(value: string | undefined, name: string): Bound | undefined {
  if (value === undefined) return undefined;
  if (parseDay(value)) return { day: value };
  const at = parseRfc3339(value);
  if (at) return at;
  throw new AppError(
    'validation_failed',
    `${name} must be a calendar day (yyyy-mm-dd) or a date-time with offset (2026-03-01T10:00:00-03:00), years 0001 to 9999`,
    { details: [{ path: `/${name}`, message: 'yyyy-mm-dd or date-time with offset, years 0001 to 9999' }] },
  );
}

const csvMoney = (value: number) => formatAmount(value, 2);

/** What the CSV adds to the sales: the company's time zone and the receipts of each sale. */
export interface SalesCsvExtras {
  timeZone: string;
  receipts: Map<number, { invoice: string[]; credit_note: string[] }>;
}

/**
 * The sales as a spreadsheet opens them in Argentina: `;`-separated, decimal comma, UTF-8 with BOM,
 * times in the company's zone as dd/mm/aaaa hh:mm, statuses, origins and methods in Spanish.
 * Columns: docs/api-ventas.md.
 */
/** GET /api/v1/register/catalog: products as [id, name, price, barcode, sku, unit]. */
const RegisterCatalog = Type.Object({
  etag: Type.String(),
  at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  products: Type.Array(
    Type.Array(Type.Union([Type.Number(), Type.String(), Type.Null()]), {
      minItems: 6,
      maxItems: 6,
      description: '[id, name, price, barcode or null, sku or null, "unit" or "kg"]',
    }),
  ),
});

export function salesCsv(sales: SaleWire[], extras: SalesCsvExtras): string {
  const head = [
    'venta',
    'fecha',
    'caja',
    'turno',
    'origen',
    'estado',
    'total',
    'pagado',
    'vuelto',
    'medio',
    'medios',
    'vendedor',
    'cliente',
    'factura',
    'nota_de_credito',
    'motivo_anulacion',
  ];
  const lines = sales.map((s) => {
    const receipts = extras.receipts.get(s.id);
    return [
      s.id,
      formatLocalDateTime(s.created_at, extras.timeZone),
      s.box_name,
      s.box_session_id,
      SALE_SOURCE_LABELS[s.source] ?? s.source,
      SALE_STATUS_LABELS[s.status] ?? s.status,
      csvMoney(s.total),
      csvMoney(s.paid_total),
      csvMoney(s.change),
      s.payment_method === null ? null : paymentMethodLabel(s.payment_method),
      s.payments.map((p) => `${paymentMethodLabel(p.method)} ${csvMoney(p.amount)}`).join(' + '),
      s.sold_by,
      s.customer_name ?? s.customer_id,
      receipts?.invoice.join(' / ') ?? null,
      receipts?.credit_note.join(' / ') ?? null,
      s.cancellation_reason,
    ];
  });
  return writeSpreadsheet(head, lines);
}

/**
 * The register's merchant API: box sessions, register sales, payments, cancellations, listings,
 * the day's summary, CSV export, and what the /caja screen needs (its state and catalogue).
 * Selling is `sell` (any member, read-write tokens); reading is `read`.
 */
export function registerRegisterRoutes(
  app: App,
  {
    register,
    creditCancelled,
  }: {
    register: RegisterService;
    /** The credit note of a cancelled invoiced sale, in the same request (pending when ARCA cannot be reached). */
    creditCancelled?: (ctx: ReturnType<typeof companyCtx>, saleId: number) => Promise<void>;
  },
) {
  app.get(
    '/api/v1/register',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: 'What the register screen needs: shop, boxes, scale-label layout',
        response: { 200: RegisterState },
      },
    },
    async (request) => register.registerState(companyCtx(request.ctx)),
  );

  app.get(
    '/api/v1/register/settings',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: "The register's settings: the cashiers' discount limit",
        response: { 200: RegisterSettings },
      },
    },
    async (request) => register.registerSettings(companyCtx(request.ctx)),
  );

  app.put(
    '/api/v1/register/settings',
    {
      config: { access: 'admin' },
      schema: {
        tags: TAGS,
        summary: "Set the cashiers' discount limit (admins; audited)",
        body: RegisterSettings,
        response: { 200: RegisterSettings, ...errorResponses({ 403: 'Not an admin' }) },
      },
    },
    async (request) => register.updateRegisterSettings(companyCtx(request.ctx), request.body),
  );

  app.get(
    '/api/v1/register/catalog',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: 'The compact catalogue the register caches (ETag; 304 when unchanged)',
        description: 'products: [id, name, price, barcode, sku, unit] of every enabled product.',
        response: {
          200: {
            description: 'The catalogue and its ETag',
            content: { 'application/json': { schema: RegisterCatalog } },
          },
        },
      },
    },
    async (request, reply) => {
      const { companyId } = companyCtx(request.ctx);
      const stamp = await register.catalogStamp(companyId);
      const body304 = { etag: stamp.etag, at: stamp.at, products: [] };
      reply.header('etag', stamp.etag).header('cache-control', 'private, no-cache');
      if (ifNoneMatches(request.headers['if-none-match'], stamp.etag)) {
        // 304 is HTTP's answer to a conditional GET, not one of the operation's: no body, no schema.
        reply.statusCode = 304;
        return reply.serializer(() => '').send(body304);
      }
      // The rows are tuples with nulls, which the schema serializer does not write: plain JSON.stringify.
      const body = { etag: stamp.etag, at: stamp.at, products: await register.catalog(companyId) };
      return reply.type('application/json; charset=utf-8').serializer(JSON.stringify).send(body);
    },
  );

  app.post(
    '/api/v1/box-sessions',
    {
      config: { access: 'sell' },
      schema: {
        tags: TAGS,
        summary: "Open the caller's own shift at a box with their own count",
        description:
          "A box has at most one open shift, which belongs to the person who opened it. When it is someone else's the answer is 409 shift_of_another_person: take it over with POST /api/v1/box-sessions/{id}/handover. With client_id (a shift opened without connection), the same id again answers the same shift (200, idempotent-replay: true).",
        body: OpenSessionBody,
        response: {
          201: Type.Object({ session: BoxSession }),
          200: Type.Object({ session: BoxSession }),
          ...errorResponses({
            409: "The box already has an open shift (shift_of_another_person when it is someone else's)",
            422: 'Unknown box',
          }),
        },
      },
    },
    async (request, reply) => {
      const { replayed, ...session } = await register.openSession(companyCtx(request.ctx), request.body);
      if (replayed) reply.header('idempotent-replay', 'true');
      return reply.code(replayed ? 200 : 201).send({ session });
    },
  );

  app.post(
    '/api/v1/box-sessions/:id/handover',
    {
      config: { access: 'sell' },
      schema: {
        tags: TAGS,
        summary: "A handover: close the box's open shift with its count and open the caller's own",
        description:
          "One transaction: the shift closes with `counted` (the outgoing person's count; the close is recorded as the caller's) and the caller's shift opens at the same box with `opening_cash` (their own count). Signed-in people only.",
        params: IdParams,
        body: HandoverBody,
        response: {
          201: HandoverResponse,
          ...errorResponses({ 403: 'Not a person (an API token)', 404: 'No such session', 422: 'Already closed or bad method' }),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await register.handover(companyCtx(request.ctx), request.params.id, request.body)),
  );

  app.get(
    '/api/v1/register/offline-shifts/:client_id',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: "A shift by the register's own id (one opened without connection) and its report",
        params: ClientIdParams,
        response: { 200: BoxSessionReport, ...errorResponses({ 404: 'No such session in this company' }) },
      },
    },
    async (request) => register.sessionByClientId(companyCtx(request.ctx), request.params.client_id),
  );

  app.get(
    '/api/v1/box-sessions',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: 'Box sessions with their reports, newest first (a cashier: only their own)',
        querystring: SessionListQuery,
        response: { 200: Type.Object({ sessions: Type.Array(BoxSessionReport) }) },
      },
    },
    async (request) => {
      const q = request.query;
      return {
        sessions: await register.listSessions(companyCtx(request.ctx), {
          ...(q.box_id !== undefined && { boxId: q.box_id }),
          ...(q.user_id !== undefined && { memberNo: q.user_id }),
          ...(q.from !== undefined && { from: { day: q.from } }),
          ...(q.to !== undefined && { to: { day: q.to } }),
          limit: q.limit,
        }),
      };
    },
  );

  app.get(
    '/api/v1/box-sessions/:id',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: 'A box session and its report',
        params: IdParams,
        response: { 200: BoxSessionReport, ...errorResponses({ 404: 'No such session in this company' }) },
      },
    },
    async (request) => register.sessionReport(companyCtx(request.ctx), request.params.id),
  );

  app.post(
    '/api/v1/box-sessions/:id/close',
    {
      config: { access: 'sell' },
      schema: {
        tags: TAGS,
        summary: 'Close a box session with what was counted per method; answers the report',
        description:
          'Its person, an admin or a read-write token may close it (another cashier: 409 shift_of_another_person). With client_id, closing again with the same id answers the same report (a close made without connection, sent again).',
        params: IdParams,
        body: CloseSessionBody,
        response: {
          200: BoxSessionReport,
          ...errorResponses({
            404: 'No such session',
            409: "Another person's shift",
            422: 'Already closed or bad method',
          }),
        },
      },
    },
    async (request) => register.closeSession(companyCtx(request.ctx), request.params.id, request.body),
  );

  app.post(
    '/api/v1/box-sessions/:id/cash',
    {
      config: { access: 'sell' },
      schema: {
        tags: TAGS,
        summary: 'Put cash into (in) or take it out of (out) the drawer',
        params: IdParams,
        body: CashMoveBody,
        response: {
          201: BoxSessionReport,
          ...errorResponses({ 404: 'No such session', 409: "Another person's shift", 422: 'Session closed' }),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await register.moveCash(companyCtx(request.ctx), request.params.id, request.body)),
  );

  app.post(
    '/api/v1/sales',
    {
      config: { access: 'sell' },
      schema: {
        tags: TAGS,
        summary: 'Sell at a box (x-idempotency-key required)',
        description:
          'The same x-idempotency-key with the same body answers the same sale (200, idempotent-replay: true) and changes nothing; with another body, 409. Stock leaves the box deposit.',
        headers: Type.Object({ 'x-idempotency-key': Type.String({ pattern: IDEMPOTENCY_KEY.source }) }),
        body: SaleCreateBody,
        response: {
          201: SaleResponse,
          200: SaleResponse,
          ...errorResponses({
            403: "A price other than the product's without an admin; a discount beyond the limit without an admin's approval (discount_needs_approval) or with a refused one (approval_refused)",
            409: "The idempotency key was used with another request, or the box's open shift is another person's (shift_of_another_person)",
            422: 'Bad sale: empty, unknown product or box, no open session, payments over the total',
            429: 'Too many refused discount approvals for that approver from this client (Retry-After)',
          }),
        },
      },
    },
    async (request, reply) => {
      const key = request.headers['x-idempotency-key'] as string;
      const { sale, replayed } = await register.createSale(companyCtx(request.ctx), key, request.body);
      if (replayed) reply.header('idempotent-replay', 'true');
      return reply.code(replayed ? 200 : 201).send({ sale });
    },
  );

  app.get(
    '/api/v1/sales',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: 'Sales, newest first, with filters and a cursor',
        querystring: SaleListQuery,
        response: { 200: SaleList },
      },
    },
    async (request) => {
      const q = request.query;
      return register.listSales(companyCtx(request.ctx), saleFilter(q, q.limit));
    },
  );

  app.get(
    '/api/v1/sales/export.csv',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: 'The sales of the filters as CSV (; separated, decimal comma)',
        querystring: Type.Omit(SaleListQuery, ['cursor', 'limit']),
        response: {
          200: {
            description: 'One sale per line (columns: docs/api-ventas)',
            content: { 'text/csv': { schema: Type.String() } },
          },
        },
      },
    },
    async (request, reply) => {
      const ctx = companyCtx(request.ctx);
      const all: SaleWire[] = [];
      const extras: SalesCsvExtras = { timeZone: AR_TIME_ZONE, receipts: new Map() };
      let cursor: string | undefined;
      do {
        const page = await register.listSales(ctx, saleFilter({ ...request.query, cursor }, 200));
        const more = await register.exportExtras(
          ctx,
          page.sales.map((s) => s.id),
        );
        extras.timeZone = more.timeZone;
        for (const [id, r] of more.receipts) extras.receipts.set(id, r);
        all.push(...page.sales);
        cursor = page.next_cursor ?? undefined;
      } while (cursor && all.length < 50_000);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="ventas.csv"')
        .send(salesCsv(all, extras));
    },
  );

  app.get(
    '/api/v1/sales/summary',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: "A day's totals by payment method and by box",
        querystring: SummaryQuery,
        response: { 200: SalesSummary },
      },
    },
    async (request) => register.summary(companyCtx(request.ctx), request.query.date),
  );

  app.get(
    '/api/v1/sales/:id',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: 'A sale',
        params: IdParams,
        response: { 200: SaleResponse, ...errorResponses({ 404: 'No such sale' }) },
      },
    },
    async (request) => ({ sale: await register.getSale(companyCtx(request.ctx), request.params.id) }),
  );

  app.post(
    '/api/v1/sales/:id/pay',
    {
      config: { access: 'sell' },
      schema: {
        tags: TAGS,
        summary: 'Pay what a pending register sale owes (pending → paid)',
        params: IdParams,
        body: PayBody,
        response: {
          200: SaleResponse,
          ...errorResponses({
            404: 'No such sale',
            409: "The box's open shift is another person's (shift_of_another_person)",
            422: 'Not pending, no open session, or payments short',
          }),
        },
      },
    },
    async (request) => ({ sale: await register.paySale(companyCtx(request.ctx), request.params.id, request.body) }),
  );

  app.post(
    '/api/v1/sales/:id/cancel',
    {
      config: { access: 'sell' },
      schema: {
        tags: TAGS,
        summary: "Cancel a sale (a paid one is a refund: admins, or a cashier with an admin's approval)",
        description:
          'Register sales put their stock back. A sale that took money is refunded in the open shift of the person cancelling (else of its box) and needs a company admin or a read-write token, or a cashier with the approval of an admin on the spot (approval: {email, password}; without it 403 refund_needs_approval, a wrong one 403 approval_refused); an invoiced one gets its credit note in the same request. A sale with returns is finished by returning its remaining lines. Integration sales: pending only, stock untouched.',
        params: IdParams,
        body: CancelBody,
        response: {
          200: SaleResponse,
          ...errorResponses({
            403: "A cashier's refund without an admin's approval (refund_needs_approval) or with a refused one (approval_refused)",
            404: 'No such sale',
            422: 'Cannot be cancelled',
          }),
        },
      },
    },
    async (request) => {
      const ctx = companyCtx(request.ctx);
      const result = await register.cancelSale(ctx, request.params.id, request.body);
      if (result.changed && creditCancelled) {
        await creditCancelled(ctx, request.params.id);
        return { sale: await register.getSale(ctx, request.params.id) };
      }
      return { sale: result.sale };
    },
  );
}

/** A sale id this API gave as next_cursor: a sale number (1 to 2147483647); anything else is 400. */
function saleCursor(cursor: string): number {
  const before = Number(cursor);
  if (before > 2_147_483_647) {
    throw new AppError('bad_request', 'cursor is not one this API gave', {
      details: [{ path: '/cursor', message: 'must be a next_cursor of this list (a sale number)' }],
    });
  }
  return before;
}

function saleFilter(
  q: {
    from?: string;
    to?: string;
    box_id?: number;
    source?: 'register' | 'integration';
    box_session_id?: number;
    customer_id?: number;
    status?: string;
    method?: string;
    cursor?: string | undefined;
  },
  limit: number,
) {
  const from = bound(q.from, 'from');
  const to = bound(q.to, 'to');
  return {
    ...(from && { from }),
    ...(to && { to }),
    ...(q.box_id !== undefined && { boxId: q.box_id }),
    ...(q.source !== undefined && { source: q.source }),
    ...(q.box_session_id !== undefined && { sessionId: q.box_session_id }),
    ...(q.customer_id !== undefined && { customerId: q.customer_id }),
    ...(q.status !== undefined && { status: q.status }),
    ...(q.method !== undefined && { method: q.method }),
    ...(q.cursor !== undefined && { before: saleCursor(q.cursor) }),
    limit,
  };
}
