import type { App } from '../../http/app.types.ts';
import { companyCtx } from '../../http/request-context.ts';
import type { Shell } from '../../http/shell.ts';
import type { RegisterService } from './register.service.ts';

/** The register screen (/caja): every member of the company; the cashier's home. */
export function registerRegisterPage(app: App, { register, shell }: { register: RegisterService; shell: Shell }) {
  app.get('/caja', { schema: { hide: true } }, async (request, reply) => {
    const ctx = companyCtx(request.ctx);
    const session = request.authSession!;
    return shell.send(request, reply, {
      title: 'Caja',
      entry: 'caja',
      data: {
        state: await register.registerState(ctx),
        user: { email: session.email, name: session.displayName, role: session.role },
      },
    });
  });

  /** Mis ventas: the person's current shift and its sales (reprint, invoice, return). Every member. */
  app.get('/mis-ventas', { schema: { hide: true } }, async (request, reply) => {
    const ctx = companyCtx(request.ctx);
    const session = request.authSession!;
    const state = await register.registerState(ctx);
    return shell.send(request, reply, {
      title: 'Mis ventas',
      entry: 'mis-ventas',
      data: {
        company: state.company,
        // The person's number in the company (what the box-sessions filter takes), never users.id.
        user: { id: state.user_id, email: session.email, name: session.displayName, role: session.role },
      },
    });
  });
}

/** The owner's screens: sales (list, filters, detail, cancel), box closes, the day's summary. Admins. */
export function registerSalesPages(app: App, { register, shell }: { register: RegisterService; shell: Shell }) {
  app.get('/ventas', { schema: { hide: true } }, async (request, reply) => {
    const ctx = companyCtx(request.ctx);
    const state = await register.registerState(ctx);
    return shell.send(request, reply, { title: 'Ventas', entry: 'ventas', data: { boxes: state.boxes, company: state.company } });
  });
  app.get('/cierres', { schema: { hide: true } }, async (request, reply) => {
    const ctx = companyCtx(request.ctx);
    const state = await register.registerState(ctx);
    return shell.send(request, reply, {
      title: 'Cierres de caja',
      entry: 'cierres',
      data: { boxes: state.boxes, company: state.company },
    });
  });
}
