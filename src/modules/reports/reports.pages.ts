import type { App } from '../../http/app.types.ts';
import { companyCtx } from '../../http/request-context.ts';
import type { Shell } from '../../http/shell.ts';
import type { ReportsModule } from './reports.module.ts';

/** Inicio (the admin's home), Reportes and the Libro IVA Ventas: admins. */
export function registerReportsPages(app: App, { reports, shell }: ReportsModule & { shell: Shell }) {
  app.get('/inicio', { schema: { hide: true } }, async (request, reply) => {
    const ctx = companyCtx(request.ctx);
    return shell.send(request, reply, { title: 'Inicio', entry: 'inicio', data: { home: await reports.home(ctx) } });
  });

  app.get('/reportes', { schema: { hide: true } }, async (request, reply) => {
    const { companyId } = companyCtx(request.ctx);
    return shell.send(request, reply, { title: 'Reportes', entry: 'reportes', data: await reports.scopes(companyId) });
  });

  app.get('/libro-iva', { schema: { hide: true } }, async (request, reply) =>
    shell.send(request, reply, { title: 'Libro IVA Ventas', entry: 'libro-iva', data: {} }),
  );
}
