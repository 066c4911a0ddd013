import type { App } from '../app.ts';
import type { Container } from '../container.ts';
import { authenticateRequest } from './auth-guard.ts';

/**
 * `/` sends each person where their work is: operators to the companies panel, company admins to
 * their integration settings, everyone else (cashiers until the POS exists, visitors) to the docs.
 */
export function registerHomeRoute(app: App, container: Container) {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const session = await authenticateRequest(request, reply, container);
    if (session?.isSuperadmin) return reply.redirect('/superadmin/companies');
    if (session?.role === 'admin') return reply.redirect('/settings/integrations');
    return reply.redirect('/docs');
  });
}
