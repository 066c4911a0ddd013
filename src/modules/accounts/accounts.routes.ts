import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import { errorResponses } from '../../http/error-body.schema.ts';
import { companyCtx } from '../../http/request-context.ts';
import {
  AccountList,
  AccountsQuery,
  CustomerAccount,
  CustomerParams,
  PaymentOnAccountBody,
  PaymentResponse,
  Statement,
  StatementQuery,
  StatementShare,
} from './accounts.schemas.ts';
import type { AccountsService } from './accounts.service.ts';

const TAGS = ['Cuenta corriente'];
const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{8,200}$/;
const NO_CUSTOMER = { 404: 'No such customer in this company' };

/**
 * The cuenta corriente's merchant API: a customer's account, payments on account, statements and
 * their share links, and the list of customers who owe. Reading is `read`; a payment or a share
 * link is `sell` (cashiers take payments at the register).
 */
export function registerAccountsRoutes(app: App, { accounts }: { accounts: AccountsService }) {
  app.get(
    '/api/v1/accounts',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: 'Customers who owe, oldest debt first, with the total owed',
        querystring: AccountsQuery,
        response: { 200: AccountList },
      },
    },
    async (request) => accounts.listAccounts(companyCtx(request.ctx), request.query.limit),
  );

  app.get(
    '/api/v1/customers/:id/account',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: "A customer's account: balance, limit, available, open sales (oldest first)",
        params: CustomerParams,
        response: { 200: CustomerAccount, ...errorResponses(NO_CUSTOMER) },
      },
    },
    async (request) => accounts.getAccount(companyCtx(request.ctx), request.params.id),
  );

  app.post(
    '/api/v1/customers/:id/payments',
    {
      config: { access: 'sell' },
      schema: {
        tags: TAGS,
        summary: 'A payment on account (x-idempotency-key required): covers the oldest open sales first',
        description:
          "Allocated to the customer's open sales on account, oldest first (a sale fully covered becomes paid: sales.paid). What is left is saldo a favor, used by the next sales on account. With session_id (an open box session) it counts in that shift's totals. The same x-idempotency-key with the same body answers the same payment (200, idempotent-replay: true); with another body, 409.",
        params: CustomerParams,
        headers: Type.Object({ 'x-idempotency-key': Type.String({ pattern: IDEMPOTENCY_KEY.source }) }),
        body: PaymentOnAccountBody,
        response: {
          201: PaymentResponse,
          200: PaymentResponse,
          ...errorResponses({
            ...NO_CUSTOMER,
            409: 'The idempotency key was used with another request',
            422: 'Bad amount or method, or the session is not open',
          }),
        },
      },
    },
    async (request, reply) => {
      const key = request.headers['x-idempotency-key'] as string;
      const { replayed, ...answer } = await accounts.recordPayment(companyCtx(request.ctx), request.params.id, key, request.body);
      if (replayed) reply.header('idempotent-replay', 'true');
      return reply.code(replayed ? 200 : 201).send(answer);
    },
  );

  app.get(
    '/api/v1/customers/:id/statement',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: 'Statement of account: opening balance, movements with running balance, closing balance, aging',
        description:
          'from and to are local days (company time zone), both included; to defaults to today, from to 90 days before to. Aging is what is owed today by the age of each open sale.',
        params: CustomerParams,
        querystring: StatementQuery,
        response: { 200: Statement, ...errorResponses({ ...NO_CUSTOMER, 422: 'from is after to' }) },
      },
    },
    async (request) => accounts.statement(companyCtx(request.ctx), request.params.id, request.query),
  );

  app.post(
    '/api/v1/customers/:id/statement/share',
    {
      config: { access: 'sell' },
      schema: {
        tags: TAGS,
        summary: 'A read-only link to the statement (no login, expires in 7 days) with WhatsApp and e-mail drafts',
        params: CustomerParams,
        response: { 201: StatementShare, ...errorResponses(NO_CUSTOMER) },
      },
    },
    async (request, reply) => reply.code(201).send(await accounts.shareStatement(companyCtx(request.ctx), request.params.id)),
  );
}
