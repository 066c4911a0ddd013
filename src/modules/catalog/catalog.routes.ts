import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import { errorResponses } from '../../http/error-body.schema.ts';
import { companyCtx } from '../../http/request-context.ts';
import { acceptSpreadsheets } from '../../http/spreadsheet-body.ts';
import { AppError } from '../../lib/errors.ts';
import {
  Box,
  BoxCreate,
  BoxPatch,
  Category,
  Deposit,
  IdParams,
  Movement,
  MovementCreate,
  NameBody,
  PageMeta,
  PriceChange,
  ImportResult,
  PriceChangeResult,
  ProductCreate,
  ProductList,
  ProductListQuery,
  ProductPatch,
  ProductResponse,
  StockLevel,
  StockQuery,
} from './catalog.schemas.ts';
import type { CatalogImport } from './catalog-import.ts';
import type { CatalogService } from './catalog.service.ts';

const PRODUCTS = ['Catálogo'];
const STOCK = ['Stock'];
const PLACES = ['Depósitos y cajas'];
const READ_ERRORS = errorResponses({ 401: 'No API token or session', 403: 'Not allowed for this caller' });
const WRITE_ERRORS = errorResponses({
  401: 'No API token or session',
  403: 'Not allowed for this caller (cashiers and read-only tokens only read)',
  404: 'Not found in this company',
  409: 'The sku or barcode belongs to another product, or the name is taken',
  422: 'Invalid input',
});
const PageQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 40 })),
  },
  { additionalProperties: false },
);

/**
 * The back office's merchant API: products, categories, deposits, boxes, stock and movements, and
 * the bulk price change. Reading is `read` (cashiers and read-only tokens included); changing is
 * `write` (admins and read-write tokens).
 */
export function registerCatalogRoutes(app: App, { catalog, imports }: { catalog: CatalogService; imports: CatalogImport }) {
  const read = { access: 'read' as const };
  const write = { access: 'write' as const };

  acceptSpreadsheets(app);

  app.post(
    '/api/v1/products/import',
    {
      config: write,
      bodyLimit: 20 * 1024 * 1024,
      schema: {
        tags: PRODUCTS,
        summary: 'Import products from a CSV (text/csv): UTF-8 or Windows-1252, ";" or ",", Spanish or English headers',
        querystring: Type.Object(
          {
            dry_run: Type.Optional(Type.Boolean({ default: false })),
            deposit_id: Type.Optional(
              Type.Integer({
                minimum: 1,
                maximum: 2_147_483_647,
                description: 'The deposit whose stock the `stock` column sets (the default deposit when absent)',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: ImportResult, ...WRITE_ERRORS },
      },
    },
    async (request) => {
      if (!Buffer.isBuffer(request.body)) {
        throw new AppError('unsupported_media_type', 'send the spreadsheet as the body with content-type: text/csv');
      }
      return imports.importCsv(companyCtx(request.ctx), request.body, request.query.dry_run ?? false, {
        depositId: request.query.deposit_id,
      });
    },
  );

  app.get(
    '/api/v1/products/export',
    {
      config: read,
      schema: {
        tags: PRODUCTS,
        summary: 'The catalogue as a CSV the import reads back (";", decimal comma, UTF-8 with BOM)',
        querystring: Type.Object(
          {
            deposit_id: Type.Optional(
              Type.Integer({
                minimum: 1,
                maximum: 2_147_483_647,
                description: 'The deposit whose stock the `stock` column shows (the default deposit when absent)',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description: 'The catalogue: one product per line, columns as EXPORT_HEADERS (docs/api-comercio)',
            content: { 'text/csv': { schema: Type.String() } },
          },
          ...READ_ERRORS,
          ...errorResponses({ 404: 'No such deposit in this company' }),
        },
      },
    },
    async (request, reply) => {
      const csv = await imports.exportCsv(companyCtx(request.ctx).companyId, { depositId: request.query.deposit_id });
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="productos.csv"')
        .send(csv);
    },
  );

  app.get(
    '/api/v1/products',
    {
      config: read,
      schema: {
        tags: PRODUCTS,
        summary: 'List products: q searches name (accents and case ignored), sku and barcode',
        querystring: ProductListQuery,
        response: { 200: ProductList, ...READ_ERRORS },
      },
    },
    async (request) => {
      const { q, category_id, mark, enabled, low_stock, limit, cursor } = request.query;
      return catalog.listProducts(
        companyCtx(request.ctx).companyId,
        { q, categoryId: category_id, mark, enabled, lowStock: low_stock },
        { limit: limit ?? 50, cursor },
      );
    },
  );

  app.post(
    '/api/v1/products',
    {
      config: write,
      schema: {
        tags: PRODUCTS,
        summary: 'Create a product',
        body: ProductCreate,
        response: { 201: ProductResponse, ...WRITE_ERRORS },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ product: await catalog.createProduct(companyCtx(request.ctx), request.body) }),
  );

  app.get(
    '/api/v1/products/:id',
    {
      config: read,
      schema: { tags: PRODUCTS, summary: 'One product', params: IdParams, response: { 200: ProductResponse, ...READ_ERRORS } },
    },
    async (request) => ({ product: await catalog.getProduct(companyCtx(request.ctx).companyId, request.params.id) }),
  );

  app.patch(
    '/api/v1/products/:id',
    {
      config: write,
      schema: {
        tags: PRODUCTS,
        summary: 'Change a product (enable: false disables it; products are never deleted)',
        params: IdParams,
        body: ProductPatch,
        response: { 200: ProductResponse, ...WRITE_ERRORS },
      },
    },
    async (request) => ({ product: await catalog.updateProduct(companyCtx(request.ctx), request.params.id, request.body) }),
  );

  app.post(
    '/api/v1/products/price-change',
    {
      config: write,
      schema: {
        tags: PRODUCTS,
        summary: 'Raise or lower prices by a percentage (dry_run shows what would change)',
        body: PriceChange,
        response: { 200: PriceChangeResult, ...WRITE_ERRORS },
      },
    },
    async (request) => catalog.changePrices(companyCtx(request.ctx), request.body),
  );

  app.get(
    '/api/v1/products/:id/movements',
    {
      config: read,
      schema: {
        tags: STOCK,
        summary: "The product's stock ledger, newest first",
        params: IdParams,
        querystring: PageQuery,
        response: { 200: Type.Object({ movements: Type.Array(Movement), meta: PageMeta }), ...READ_ERRORS },
      },
    },
    async (request) =>
      catalog.listMovements(companyCtx(request.ctx).companyId, request.params.id, {
        limit: request.query.limit ?? 50,
        cursor: request.query.cursor,
      }),
  );

  app.get(
    '/api/v1/stock',
    {
      config: read,
      schema: {
        tags: STOCK,
        summary: 'Stock of each enabled product in each deposit',
        querystring: StockQuery,
        response: { 200: Type.Object({ stock: Type.Array(StockLevel), meta: PageMeta }), ...READ_ERRORS },
      },
    },
    async (request) => {
      const { deposit_id, q, low_stock, limit, cursor } = request.query;
      return catalog.listStock(
        companyCtx(request.ctx).companyId,
        { depositId: deposit_id, q, lowStock: low_stock },
        { limit: limit ?? 50, cursor },
      );
    },
  );

  app.post(
    '/api/v1/movements',
    {
      config: write,
      schema: {
        tags: STOCK,
        summary: 'Receive goods (IN), take out (OUT), move between deposits (TRANSFER) or set a counted stock (ADJUSTMENT)',
        body: MovementCreate,
        response: {
          201: Type.Object({ movement: Movement }),
          ...WRITE_ERRORS,
          ...errorResponses({
            409: 'insufficient_stock: OUT or TRANSFER takes more than the deposit holds (details: /stock, /amount, /remaining); send allow_negative: true to record it anyway',
          }),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ movement: await catalog.createMovement(companyCtx(request.ctx), request.body) }),
  );

  app.get(
    '/api/v1/categories',
    {
      config: read,
      schema: { tags: PRODUCTS, summary: 'Categories', response: { 200: Type.Object({ categories: Type.Array(Category) }) } },
    },
    async (request) => ({ categories: await catalog.listCategories(companyCtx(request.ctx).companyId) }),
  );
  app.post(
    '/api/v1/categories',
    {
      config: write,
      schema: {
        tags: PRODUCTS,
        summary: 'Create a category',
        body: NameBody,
        response: { 201: Type.Object({ category: Category }), ...WRITE_ERRORS },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ category: await catalog.createCategory(companyCtx(request.ctx), request.body.name) }),
  );
  app.patch(
    '/api/v1/categories/:id',
    {
      config: write,
      schema: {
        tags: PRODUCTS,
        summary: 'Rename a category',
        params: IdParams,
        body: NameBody,
        response: { 200: Type.Object({ category: Category }), ...WRITE_ERRORS },
      },
    },
    async (request) => ({
      category: await catalog.renameCategory(companyCtx(request.ctx), request.params.id, request.body.name),
    }),
  );

  app.get(
    '/api/v1/deposits',
    {
      config: read,
      schema: { tags: PLACES, summary: 'Deposits', response: { 200: Type.Object({ deposits: Type.Array(Deposit) }) } },
    },
    async (request) => ({ deposits: await catalog.listDeposits(companyCtx(request.ctx).companyId) }),
  );
  app.post(
    '/api/v1/deposits',
    {
      config: write,
      schema: {
        tags: PLACES,
        summary: 'Create a deposit',
        body: NameBody,
        response: { 201: Type.Object({ deposit: Deposit }), ...WRITE_ERRORS },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ deposit: await catalog.createDeposit(companyCtx(request.ctx), request.body.name) }),
  );
  app.patch(
    '/api/v1/deposits/:id',
    {
      config: write,
      schema: {
        tags: PLACES,
        summary: 'Rename a deposit',
        params: IdParams,
        body: NameBody,
        response: { 200: Type.Object({ deposit: Deposit }), ...WRITE_ERRORS },
      },
    },
    async (request) => ({
      deposit: await catalog.renameDeposit(companyCtx(request.ctx), request.params.id, request.body.name),
    }),
  );

  app.get(
    '/api/v1/boxes',
    {
      config: read,
      schema: { tags: PLACES, summary: 'Boxes (cajas)', response: { 200: Type.Object({ boxes: Type.Array(Box) }) } },
    },
    async (request) => ({ boxes: await catalog.listBoxes(companyCtx(request.ctx).companyId) }),
  );
  app.post(
    '/api/v1/boxes',
    {
      config: write,
      schema: {
        tags: PLACES,
        summary: 'Create a box and choose the deposit it sells from',
        body: BoxCreate,
        response: { 201: Type.Object({ box: Box }), ...WRITE_ERRORS },
      },
    },
    async (request, reply) => reply.code(201).send({ box: await catalog.createBox(companyCtx(request.ctx), request.body) }),
  );
  app.patch(
    '/api/v1/boxes/:id',
    {
      config: write,
      schema: {
        tags: PLACES,
        summary: 'Rename a box or change its deposit',
        params: IdParams,
        body: BoxPatch,
        response: { 200: Type.Object({ box: Box }), ...WRITE_ERRORS },
      },
    },
    async (request) => ({ box: await catalog.updateBox(companyCtx(request.ctx), request.params.id, request.body) }),
  );
}
