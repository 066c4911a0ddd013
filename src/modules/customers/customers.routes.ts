import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import { errorResponses } from '../../http/error-body.schema.ts';
import { companyCtx } from '../../http/request-context.ts';
import { acceptSpreadsheets } from '../../http/spreadsheet-body.ts';
import { AppError } from '../../lib/errors.ts';
import type { CustomersModule } from './customers.module.ts';
import {
  CustomerCreate,
  CustomerImportResult,
  CustomerList,
  CustomerListQuery,
  CustomerParams,
  CustomerPatch,
  CustomerResponse,
} from './customers.schemas.ts';

const TAGS = ['Clientes'];
const READ_ERRORS = errorResponses({ 401: 'No API token or session', 403: 'Not allowed for this caller' });
const WRITE_ERRORS = errorResponses({
  401: 'No API token or session',
  403: 'Not allowed for this caller',
  404: 'No such customer in this company',
  409: 'customer_document_taken: another customer of this company has that document (details: customer_id, customer_name)',
  422: 'Invalid input: CUIT/CUIL check digit, DNI, passport, phone, email, IVA condition (details name the field)',
});

/**
 * The merchant CRM (/api/v1/customers). Reading is `read` (any member, any token); creating is
 * `sell` (cashiers create a customer at the register or the invoice form); changing, disabling and
 * the spreadsheets are `write` (admins and read-write tokens: the export carries personal data).
 */
export function registerCustomerRoutes(app: App, { customers, imports }: CustomersModule) {
  acceptSpreadsheets(app);

  app.get(
    '/api/v1/customers',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: 'List customers by name: q searches name (accents and case ignored), document, phone and email',
        querystring: CustomerListQuery,
        response: { 200: CustomerList, ...READ_ERRORS, ...errorResponses({ 422: 'A cursor this API did not give' }) },
      },
    },
    async (request) => {
      const { q, enabled, limit, cursor } = request.query;
      return customers.listCustomers(companyCtx(request.ctx).companyId, { q, enabled }, { limit: limit ?? 50, cursor });
    },
  );

  app.post(
    '/api/v1/customers',
    {
      config: { access: 'sell' },
      schema: {
        tags: TAGS,
        summary: 'Create a customer (name required; IVA condition Consumidor Final when absent)',
        body: CustomerCreate,
        response: { 201: CustomerResponse, ...WRITE_ERRORS },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ customer: await customers.createCustomer(companyCtx(request.ctx), request.body) }),
  );

  app.get(
    '/api/v1/customers/export',
    {
      config: { access: 'write' },
      schema: {
        tags: TAGS,
        summary: 'The customers as a CSV the import reads back (";", decimal comma, UTF-8 with BOM)',
        response: {
          200: {
            description: 'One customer per line, columns as in /docs/clientes',
            content: { 'text/csv': { schema: Type.String() } },
          },
          ...READ_ERRORS,
        },
      },
    },
    async (request, reply) =>
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="clientes.csv"')
        .send(await imports.exportCsv(companyCtx(request.ctx).companyId)),
  );

  app.post(
    '/api/v1/customers/import',
    {
      config: { access: 'write' },
      bodyLimit: 20 * 1024 * 1024,
      schema: {
        tags: TAGS,
        summary: 'Import customers from a CSV (text/csv): UTF-8 or Windows-1252, ";" or ",", Spanish or English headers',
        querystring: Type.Object({ dry_run: Type.Optional(Type.Boolean({ default: false })) }, { additionalProperties: false }),
        response: { 200: CustomerImportResult, ...WRITE_ERRORS },
      },
    },
    async (request) => {
      if (!Buffer.isBuffer(request.body)) {
        throw new AppError('unsupported_media_type', 'send the spreadsheet as the body with content-type: text/csv');
      }
      return imports.importCsv(companyCtx(request.ctx), request.body, request.query.dry_run ?? false);
    },
  );

  app.get(
    '/api/v1/customers/:id',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: 'One customer',
        params: CustomerParams,
        response: { 200: CustomerResponse, ...READ_ERRORS, ...errorResponses({ 404: 'No such customer in this company' }) },
      },
    },
    async (request) => ({ customer: await customers.getCustomer(companyCtx(request.ctx).companyId, request.params.id) }),
  );

  app.patch(
    '/api/v1/customers/:id',
    {
      config: { access: 'write' },
      schema: {
        tags: TAGS,
        summary: 'Change a customer (enabled: false disables it; customers are never deleted)',
        params: CustomerParams,
        body: CustomerPatch,
        response: { 200: CustomerResponse, ...WRITE_ERRORS },
      },
    },
    async (request) => ({
      customer: await customers.updateCustomer(companyCtx(request.ctx), request.params.id, request.body),
    }),
  );
}
