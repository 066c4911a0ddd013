import type { App } from '../../http/app.types.ts';
import { companyCtx } from '../../http/request-context.ts';
import type { Shell } from '../../http/shell.ts';
import type { CustomersModule } from './customers.module.ts';

/**
 * The CRM's screens (admin surface): Clientes (the list, search, spreadsheets) and Cliente (one
 * customer, new or existing: data, sales, receipts, enable/disable). Their data comes from /api/v1.
 */
export function registerCustomerPages(app: App, { customers, shell }: { customers: CustomersModule; shell: Shell }) {
  app.get('/clientes', { schema: { hide: true } }, async (request, reply) =>
    shell.send(request, reply, { title: 'Clientes', entry: 'clientes', data: {} }),
  );

  app.get('/clientes/nuevo', { schema: { hide: true } }, async (request, reply) =>
    shell.send(request, reply, { title: 'Nuevo cliente', entry: 'cliente', data: { customer: null } }),
  );

  app.get<{ Params: { id: string } }>('/clientes/:id', { schema: { hide: true } }, async (request, reply) => {
    const { companyId } = companyCtx(request.ctx);
    const id = /^\d{1,9}$/.test(request.params.id) ? Number(request.params.id) : null;
    const row = id === null ? null : await customers.customers.findCustomer(companyId, id);
    if (!row) {
      return shell.send(request, reply, {
        title: 'Cliente',
        entry: 'cliente',
        status: 404,
        data: { customer: null, not_found: true },
      });
    }
    const customer = await customers.customers.getCustomer(companyId, row.id);
    return shell.send(request, reply, { title: customer.name, entry: 'cliente', data: { customer } });
  });
}
