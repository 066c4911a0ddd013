import { Type } from 'typebox';
import { MONEY_MAX } from '../../lib/precision.ts';
import type { App } from '../../http/app.types.ts';
import { errorResponses } from '../../http/error-body.schema.ts';
import { companyCtx } from '../../http/request-context.ts';
import { ReturnBody, RefundMethodSchema, ReturnLineInput, SaleReturn } from './returns.schemas.ts';
import type { ReturnsService } from './returns.service.ts';
import { PaymentInputSchema, Sale } from './sales.schemas.ts';

const TAGS = ['Caja y ventas'];
const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{8,200}$/;
const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
const KeyHeader = Type.Object({ 'x-idempotency-key': Type.String({ pattern: IDEMPOTENCY_KEY.source }) });

const ExchangeBody = Type.Object(
  {
    box_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The box the new sale is made at (an open shift)' }),
    return_lines: Type.Array(ReturnLineInput, { minItems: 1, maxItems: 500 }),
    new_items: Type.Array(
      Type.Object(
        {
          product_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
          quantity: Type.Number({ exclusiveMinimum: 0, maximum: 99_999_999 }),
          price: Type.Optional(Type.Number({ minimum: 0, maximum: MONEY_MAX })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 500 },
    ),
    refund_method: Type.Optional(RefundMethodSchema),
    payments: Type.Optional(Type.Array(PaymentInputSchema, { maxItems: 20 })),
    reason: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { additionalProperties: false },
);

const Exchange = Type.Object({
  exchange: Type.Object({
    return: SaleReturn,
    sale: Sale,
    difference: Type.Number({
      description: 'New sale total minus the returned amount: positive paid on top, negative given back',
    }),
  }),
});

/** Returns and exchanges of a sale (docs/api-ventas.md "Devoluciones y cambios"). */
export function registerReturnsRoutes(app: App, { returns }: { returns: ReturnsService }) {
  app.post(
    '/api/v1/sales/:id/returns',
    {
      config: { access: 'sell' },
      schema: {
        tags: TAGS,
        summary: 'Return lines of a paid sale (x-idempotency-key required)',
        description:
          'The quantities go back to the deposit the sale left; the money back in an open shift (refund.method) or to the customer\'s account ("store_credit"). Money back by a cashier needs an admin\'s approval on the spot (approval: {email, password}; admins and read-write tokens need none): without it 403 refund_needs_approval, a wrong one 403 approval_refused (audited sale.refund_approval_failed); the approval is checked after everything else and is not part of the idempotency fingerprint. Never beyond what was sold (422 return_exceeds_sold). The last return cancels the sale. An invoiced sale gets its credit note in the same request; if ARCA cannot be reached the return stands and credit_note.status is pending until it is settled.',
        params: IdParams,
        headers: KeyHeader,
        body: ReturnBody,
        response: {
          201: Type.Object({ return: SaleReturn }),
          200: Type.Object({ return: SaleReturn }),
          ...errorResponses({
            403: "A cashier's money back without an admin's approval (refund_needs_approval) or with a refused one (approval_refused)",
            404: 'No such sale',
            409: 'The idempotency key was used with another request',
            422: 'Beyond what was sold, not a paid register sale, no open shift, store credit without a customer',
          }),
        },
      },
    },
    async (request, reply) => {
      const key = request.headers['x-idempotency-key'] as string;
      const { ret, replayed } = await returns.returnLines(companyCtx(request.ctx), request.params.id, key, request.body);
      if (replayed) reply.header('idempotent-replay', 'true');
      return reply.code(replayed ? 200 : 201).send({ return: ret });
    },
  );

  app.get(
    '/api/v1/sales/:id/returns',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: "A sale's returns, oldest first",
        params: IdParams,
        response: { 200: Type.Object({ returns: Type.Array(SaleReturn) }), ...errorResponses({ 404: 'No such sale' }) },
      },
    },
    async (request) => ({ returns: await returns.listReturns(companyCtx(request.ctx), request.params.id) }),
  );

  app.post(
    '/api/v1/sales/:id/returns/:returnId/credit-note',
    {
      config: { access: 'write' },
      schema: {
        tags: TAGS,
        summary: "A return's credit note, tried again (after ARCA rejected it or could not be reached)",
        description:
          'Issued in the same request as the return; when it was left pending it is settled by the background job; a rejected one is tried again here.',
        params: Type.Object({
          id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
          returnId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
        }),
        response: {
          200: Type.Object({ return: SaleReturn }),
          ...errorResponses({
            404: 'No such sale or return',
            422: 'The sale has no invoice issued here, or ARCA rejected the credit note',
            504: 'ARCA did not answer: the credit note stays pending',
          }),
        },
      },
    },
    async (request) => ({
      return: await returns.retryCreditNote(companyCtx(request.ctx), request.params.id, request.params.returnId),
    }),
  );

  app.post(
    '/api/v1/sales/:id/exchanges',
    {
      config: { access: 'sell' },
      schema: {
        tags: TAGS,
        summary: 'Exchange: return lines and sell new ones in one request (x-idempotency-key required)',
        description:
          'The returned value goes back in refund_method (efectivo by default) and pays the new sale in the same method; payments cover what the new sale costs on top. The new sale is linked from the return (exchange_sale_id). The return and the new sale are one transaction: both are made or neither; the credit note of an invoiced sale comes after it, as for a return.',
        params: IdParams,
        headers: KeyHeader,
        body: ExchangeBody,
        response: {
          201: Exchange,
          200: Exchange,
          ...errorResponses({
            404: 'No such sale',
            409: 'The idempotency key was used with another request',
            422: 'Beyond what was sold, bad new lines or payments, no open shift',
          }),
        },
      },
    },
    async (request, reply) => {
      const key = request.headers['x-idempotency-key'] as string;
      const result = await returns.exchange(companyCtx(request.ctx), request.params.id, key, request.body);
      if (result.replayed) reply.header('idempotent-replay', 'true');
      return reply.code(result.replayed ? 200 : 201).send({ exchange: result.exchange });
    },
  );
}
