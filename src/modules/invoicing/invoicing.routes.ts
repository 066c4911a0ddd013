import type { App } from '../../http/app.types.ts';
import { errorResponses } from '../../http/error-body.schema.ts';
import { companyCtx } from '../../http/request-context.ts';
import type { CaeaService } from './caea.service.ts';
import type { FiscalService } from './fiscal.service.ts';
import {
  Attempt,
  CaeaBlockReturned,
  CaeaBlocksBody,
  CaeaBlocksResponse,
  CaeaInformResult,
  CaeaStatus,
  OfflineInvoiceBody,
  CertificateBody,
  CsrBody,
  FiscalCheck,
  FiscalSetup,
  FiscalUpdateBody,
  IdParams,
  InvoiceList,
  InvoiceResponse,
  IssueBody,
  ListQuery,
  SaleInvoices,
} from './invoicing.schemas.ts';
import type { InvoicingService } from './invoicing.service.ts';
import { Type } from 'typebox';

const INVOICES = ['Facturación'];
const READ_ERRORS = errorResponses({
  401: 'No API token or session',
  403: 'Not allowed for this caller',
  404: 'Not found in this company',
});
const ISSUE_ERRORS = errorResponses({
  401: 'No API token or session',
  403: 'Not allowed for this caller',
  404: 'Not found in this company',
  409: 'The sale is being invoiced by another request, or the series disagrees with ARCA',
  422: 'Invalid input, fiscal setup incomplete, or ARCA rejected the receipt (code arca_rejected, details per ARCA code)',
  502: 'ARCA answered with an error',
  503: 'ARCA cannot be asked yet (a login ticket exists elsewhere)',
  504: 'ARCA did not answer: the receipt stays pending and is settled before the next one of its series',
});
const ADMIN_ERRORS = errorResponses({
  401: 'No session',
  403: 'Admins of the company only, with a session',
  409: 'A concurrent change conflicted',
  422: 'Invalid input, or a CUIT that cannot be used in this company (code cuit_unavailable)',
});

/**
 * Electronic invoicing on the merchant API: the fiscal setup (admins with a session), issuing a
 * sale's invoice (anyone who sells), credit notes (admins and read-write tokens), reading receipts.
 */
export function registerInvoicingRoutes(
  app: App,
  { fiscal, invoicing, caea }: { fiscal: FiscalService; invoicing: InvoicingService; caea: CaeaService },
) {
  app.get(
    '/api/v1/fiscal',
    {
      config: { access: 'read' },
      schema: {
        tags: INVOICES,
        summary: "The company's fiscal setup and whether it can invoice",
        response: { 200: FiscalSetup, ...READ_ERRORS },
      },
    },
    async (request) => fiscal.get(companyCtx(request.ctx).companyId),
  );

  app.put(
    '/api/v1/fiscal',
    {
      config: { access: 'admin' },
      schema: {
        tags: INVOICES,
        summary: 'Change the fiscal setup: CUIT, IVA condition, printout data, authentication, environment, points of sale',
        body: FiscalUpdateBody,
        response: { 200: FiscalSetup, ...ADMIN_ERRORS },
      },
    },
    async (request) => fiscal.update(companyCtx(request.ctx), request.body),
  );

  app.post(
    '/api/v1/fiscal/csr',
    {
      config: { access: 'admin' },
      schema: {
        tags: INVOICES,
        summary: 'Generate a key (kept sealed here) and its CSR to upload to ARCA',
        body: CsrBody,
        response: { 200: Type.Object({ csr: Type.String() }), ...ADMIN_ERRORS },
      },
    },
    async (request) => fiscal.createCsr(companyCtx(request.ctx), request.body ?? {}),
  );

  app.post(
    '/api/v1/fiscal/certificate',
    {
      config: { access: 'admin' },
      schema: {
        tags: INVOICES,
        summary: "Upload the company's certificate (and its key, unless the CSR was generated here)",
        body: CertificateBody,
        response: { 200: FiscalSetup, ...ADMIN_ERRORS },
      },
    },
    async (request) => fiscal.uploadCertificate(companyCtx(request.ctx), request.body),
  );

  app.post(
    '/api/v1/fiscal/check',
    {
      config: { access: 'admin' },
      schema: {
        tags: INVOICES,
        summary: '"Probar conexión": FEDummy, a login and FEParamGetPtosVenta, each step explained in Spanish',
        response: { 200: FiscalCheck, ...ADMIN_ERRORS },
      },
    },
    async (request) => fiscal.check(companyCtx(request.ctx)),
  );

  app.post(
    '/api/v1/sales/:id/invoice',
    {
      config: { access: 'sell' },
      schema: {
        tags: INVOICES,
        summary: "Issue the sale's invoice with ARCA (201); the sale already invoiced answers 200 with it",
        params: IdParams,
        body: IssueBody,
        response: { 200: InvoiceResponse, 201: InvoiceResponse, ...ISSUE_ERRORS },
      },
    },
    async (request, reply) => {
      const result = await invoicing.issue(companyCtx(request.ctx), request.params.id, request.body ?? {});
      return reply.code(result.created ? 201 : 200).send({ invoice: result.invoice });
    },
  );

  app.get(
    '/api/v1/sales/:id/invoices',
    {
      config: { access: 'read' },
      schema: {
        tags: INVOICES,
        summary: "A sale's receipts and every authorisation attempt (rejections with ARCA's codes)",
        params: IdParams,
        response: { 200: SaleInvoices, ...READ_ERRORS },
      },
    },
    async (request) => invoicing.ofSale(companyCtx(request.ctx), request.params.id),
  );

  app.get(
    '/api/v1/invoices',
    {
      config: { access: 'read' },
      schema: {
        tags: INVOICES,
        summary: 'Receipts, newest first',
        querystring: ListQuery,
        response: { 200: InvoiceList, ...READ_ERRORS },
      },
    },
    async (request) =>
      invoicing.list(companyCtx(request.ctx), {
        cursor: request.query.cursor,
        limit: request.query.limit ?? 50,
        customerId: request.query.customer_id,
      }),
  );

  app.get(
    '/api/v1/invoices/:id',
    {
      config: { access: 'read' },
      schema: { tags: INVOICES, summary: 'One receipt', params: IdParams, response: { 200: InvoiceResponse, ...READ_ERRORS } },
    },
    async (request) => ({ invoice: await invoicing.get(companyCtx(request.ctx), request.params.id) }),
  );

  app.post(
    '/api/v1/invoices/:id/credit-note',
    {
      config: { access: 'write' },
      schema: {
        tags: INVOICES,
        summary: 'Issue the credit note of an invoice whose sale was cancelled (same class, CbtesAsoc)',
        params: IdParams,
        response: { 200: InvoiceResponse, 201: InvoiceResponse, ...ISSUE_ERRORS },
      },
    },
    async (request, reply) => {
      const result = await invoicing.creditNote(companyCtx(request.ctx), request.params.id);
      return reply.code(result.created ? 201 : 200).send({ invoice: result.invoice });
    },
  );

  app.post(
    '/api/v1/invoice-attempts/:id/retry',
    {
      config: { access: 'sell' },
      schema: {
        tags: INVOICES,
        summary: 'Settle a pending attempt with ARCA now (it is also settled in the background and before the next receipt)',
        params: IdParams,
        response: { 200: Attempt, ...ISSUE_ERRORS },
      },
    },
    async (request) => invoicing.retry(companyCtx(request.ctx), request.params.id),
  );

  app.get(
    '/api/v1/fiscal/caea',
    {
      config: { access: 'read' },
      schema: {
        tags: INVOICES,
        summary: 'CAEA contingency: this and the next fortnight, alerts, receipts still to inform ARCA',
        response: { 200: CaeaStatus, ...READ_ERRORS },
      },
    },
    async (request) => caea.status(companyCtx(request.ctx)),
  );

  app.post(
    '/api/v1/fiscal/caea/request',
    {
      config: { access: 'admin' },
      schema: {
        tags: INVOICES,
        summary:
          "Ask ARCA now for this (and, inside its window, the next) fortnight's CAEA (FECAEASolicitar, or FECAEAConsultar when granted)",
        response: { 200: CaeaStatus, ...ADMIN_ERRORS, ...ISSUE_ERRORS },
      },
    },
    async (request) => caea.obtainNow(companyCtx(request.ctx)),
  );

  app.post(
    '/api/v1/fiscal/caea/inform',
    {
      config: { access: 'admin' },
      schema: {
        tags: INVOICES,
        summary: 'Inform ARCA now of the CAEA receipts pending (FECAEARegInformativo, in number order)',
        response: { 200: CaeaInformResult, ...ADMIN_ERRORS },
      },
    },
    async (request) => {
      const ctx = companyCtx(request.ctx);
      const r = await caea.informAll(ctx.companyId);
      return { ...r, status: await caea.status(ctx) };
    },
  );

  const blockWire = (
    b: {
      id: number;
      boxId: number;
      receiptCode: number;
      pointOfSale: number;
      firstNumber: number;
      lastNumber: number;
      status: 'open' | 'returned';
    },
    used: number[],
  ) => ({
    id: b.id,
    box_id: b.boxId,
    receipt_code: b.receiptCode,
    point_of_sale: b.pointOfSale,
    first: b.firstNumber,
    last: b.lastNumber,
    status: b.status,
    used,
  });

  app.post(
    '/api/v1/caea/blocks',
    {
      config: { access: 'sell' },
      schema: {
        tags: INVOICES,
        summary: "Reserve (or get again) the box's block of CAEA numbers per receipt type, to invoice while offline",
        body: CaeaBlocksBody,
        response: { 200: CaeaBlocksResponse, ...ISSUE_ERRORS },
      },
    },
    async (request) => {
      const ctx = companyCtx(request.ctx);
      const r = await caea.reserveBlocks(ctx, request.body.box_id, request.body.size ?? 50);
      return {
        caea: { code: r.caea.caea, valid_from: r.caea.validFrom, valid_to: r.caea.validTo },
        issuer: {
          cuit: r.setup.cuit,
          iva_condition: r.setup.ivaCondition,
          legal_name: r.setup.legalName,
          address: r.setup.address,
          gross_income: r.setup.grossIncome,
          activity_start: r.setup.activityStart,
          environment: r.setup.environment,
        },
        blocks: await Promise.all(r.blocks.map(async (b) => blockWire(b, await caea.usedOfBlock(ctx, b.id)))),
      };
    },
  );

  app.post(
    '/api/v1/caea/blocks/:id/return',
    {
      config: { access: 'sell' },
      schema: {
        tags: INVOICES,
        summary: 'The box is back online: close its block; the numbers it did not use are free for the series again',
        params: IdParams,
        response: { 200: CaeaBlockReturned, ...READ_ERRORS },
      },
    },
    async (request) => {
      const r = await caea.returnBlock(companyCtx(request.ctx), request.params.id);
      return { block: blockWire(r.block, r.used) };
    },
  );

  app.post(
    '/api/v1/sales/:id/invoice/offline',
    {
      config: { access: 'sell' },
      schema: {
        tags: INVOICES,
        summary: 'Record the invoice a box printed offline under the CAEA with a number of its block (201; again: 200)',
        params: IdParams,
        body: OfflineInvoiceBody,
        response: { 200: InvoiceResponse, 201: InvoiceResponse, ...ISSUE_ERRORS },
      },
    },
    async (request, reply) => {
      const result = await invoicing.issueOffline(companyCtx(request.ctx), request.params.id, request.body);
      return reply.code(result.created ? 201 : 200).send({ invoice: result.invoice });
    },
  );
}
