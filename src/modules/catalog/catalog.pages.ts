import type { App } from '../../http/app.types.ts';
import { AppError } from '../../lib/errors.ts';
import { companyCtx } from '../../http/request-context.ts';
import type { Shell } from '../../http/shell.ts';
import type { ApiTokenService } from '../api-tokens/api-tokens.service.ts';
import type { CatalogService } from './catalog.service.ts';

/** The back office's screens (admin surface): Productos, Stock, Categorías/depósitos/cajas and Tokens de API. Their data comes from /api/v1. */
export function registerCatalogPages(
  app: App,
  { catalog, tokens, shell }: { catalog: CatalogService; tokens: ApiTokenService; shell: Shell },
) {
  app.get('/productos', { schema: { hide: true } }, async (request, reply) => {
    const { companyId } = companyCtx(request.ctx);
    const categories = (await catalog.listCategories(companyId)).map((c) => ({ id: Number(c.id), name: c.name }));
    return shell.send(request, reply, { title: 'Productos', entry: 'productos', data: { categories } });
  });

  // Producto: the whole product form (new or one product); the data is the product as the API shows it.
  app.get('/productos/nuevo', { schema: { hide: true } }, async (request, reply) => {
    const { companyId } = companyCtx(request.ctx);
    const categories = (await catalog.listCategories(companyId)).map((c) => ({ id: Number(c.id), name: c.name }));
    return shell.send(request, reply, { title: 'Nuevo producto', entry: 'producto', data: { product: null, categories } });
  });

  app.get<{ Params: { id: string } }>('/productos/:id', { schema: { hide: true } }, async (request, reply) => {
    const { companyId } = companyCtx(request.ctx);
    const categories = (await catalog.listCategories(companyId)).map((c) => ({ id: Number(c.id), name: c.name }));
    const id = /^\d{1,9}$/.test(request.params.id) ? Number(request.params.id) : null;
    const product =
      id === null
        ? null
        : await catalog.getProduct(companyId, id).catch((err: unknown) => {
            if (err instanceof AppError && err.code === 'not_found') return null;
            throw err;
          });
    if (!product) {
      return shell.send(request, reply, {
        title: 'Producto',
        entry: 'producto',
        status: 404,
        data: { product: null, categories, not_found: true },
      });
    }
    return shell.send(request, reply, { title: product.name, entry: 'producto', data: { product, categories } });
  });

  app.get('/stock', { schema: { hide: true } }, async (request, reply) => {
    const { companyId } = companyCtx(request.ctx);
    const deposits = (await catalog.listDeposits(companyId)).map((d) => ({
      id: Number(d.id),
      name: d.name,
      is_default: d.is_default,
    }));
    return shell.send(request, reply, { title: 'Stock', entry: 'stock', data: { deposits } });
  });

  app.get('/depositos', { schema: { hide: true } }, async (request, reply) => {
    const { companyId } = companyCtx(request.ctx);
    const [categories, deposits, boxes] = await Promise.all([
      catalog.listCategories(companyId),
      catalog.listDeposits(companyId),
      catalog.listBoxes(companyId),
    ]);
    return shell.send(request, reply, {
      title: 'Categorías, depósitos y cajas',
      entry: 'depositos',
      data: {
        categories: categories.map((c) => ({ id: Number(c.id), name: c.name, products: Number(c.products) })),
        deposits: deposits.map((d) => ({ id: Number(d.id), name: d.name, is_default: d.is_default })),
        boxes: boxes.map((b) => ({ id: Number(b.id), name: b.name, deposit_id: Number(b.deposit_id) })),
      },
    });
  });

  app.get('/settings/api-tokens', { schema: { hide: true } }, async (request, reply) =>
    shell.send(request, reply, {
      title: 'Tokens de API',
      entry: 'api-tokens',
      data: { tokens: await tokens.list(companyCtx(request.ctx).companyId) },
    }),
  );
}
