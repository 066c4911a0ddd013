import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import type { AssetCatalog } from '../../http/assets.ts';
import { html, sendHtml } from '../../http/page.ts';
import { companyCtx } from '../../http/request-context.ts';
import type { Shell } from '../../http/shell.ts';
import { AppError } from '../../lib/errors.ts';
import type { AccountsService } from './accounts.service.ts';
import { renderStatementPage, statementNotFoundPage } from './statement-page.ts';

const DAY = '^\\d{4}-\\d{2}-\\d{2}$';

function files(assets: AssetCatalog) {
  return { script: assets.url('factura.js'), styles: assets.url('estado-de-cuenta.css') };
}

/**
 * The shared statement (/estado-de-cuenta/:token): no login, read-only, until the link expires.
 * A wrong or expired token is a 404 page that names nothing.
 */
export function registerSharedStatementPage(app: App, { accounts, assets }: { accounts: AccountsService; assets: AssetCatalog }) {
  app.get(
    '/estado-de-cuenta/:token',
    { schema: { hide: true, params: Type.Object({ token: Type.String({ maxLength: 100 }) }) } },
    async (request, reply) => {
      const statement = await accounts.sharedStatement(request.params.token);
      // no-referrer: the token never leaves in a Referer header.
      if (!statement) return sendHtml(reply, statementNotFoundPage(), { status: 404, referrer: 'no-referrer' });
      return sendHtml(reply, renderStatementPage(statement, { assets: files(assets), shared: true }), {
        referrer: 'no-referrer',
      });
    },
  );
}

/** The printable statement of a customer (/clientes/:id/estado-de-cuenta?desde=&hasta=): every member. */
export function registerStatementPrintPage(app: App, { accounts, assets }: { accounts: AccountsService; assets: AssetCatalog }) {
  app.get(
    '/clientes/:id/estado-de-cuenta',
    {
      schema: {
        hide: true,
        params: Type.Object({ id: Type.String({ maxLength: 12 }) }),
        querystring: Type.Object({
          desde: Type.Optional(Type.String({ pattern: DAY })),
          hasta: Type.Optional(Type.String({ pattern: DAY })),
          imprimir: Type.Optional(Type.String({ maxLength: 2 })),
        }),
      },
    },
    async (request, reply) => {
      const ctx = companyCtx(request.ctx);
      const id = /^\d{1,9}$/.test(request.params.id) ? Number(request.params.id) : null;
      try {
        if (id === null) throw new AppError('customer_not_found', 'no such customer');
        const { desde, hasta } = request.query;
        const statement = await accounts.statement(ctx, id, { ...(desde && { from: desde }), ...(hasta && { to: hasta }) });
        return sendHtml(reply, renderStatementPage(statement, { assets: files(assets), shared: false }));
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'customer_not_found') throw err;
        return sendHtml(
          reply,
          html`<!doctype html><html lang="es-AR"><head><meta charset="utf-8" /><title>Cliente no encontrado</title></head>
<body><h1>Cliente no encontrado</h1><p>No hay un cliente ${request.params.id} en esta empresa.</p></body></html>`.value,
          { status: 404 },
        );
      }
    },
  );
}

/** Cuentas corrientes (/cuentas-corrientes): customers who owe, for admins. */
export function registerAccountsPage(app: App, { accounts, shell }: { accounts: AccountsService; shell: Shell }) {
  app.get('/cuentas-corrientes', { schema: { hide: true } }, async (request, reply) =>
    shell.send(request, reply, {
      title: 'Cuentas corrientes',
      entry: 'cuentas-corrientes',
      data: { list: await accounts.listAccounts(companyCtx(request.ctx), 500) },
    }),
  );
}
