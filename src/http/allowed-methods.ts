import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { FastifyInstance, RouteOptions } from 'fastify';

/**
 * Which methods an address answers to, for the answer to one it does not (405 with `Allow`, RFC
 * 9110 §15.5.6) instead of a 404 that says the address does not exist. Fastify's own router looks
 * up one method at a time and only by route pattern, so every route is also entered here (an
 * `onRoute` hook: added before any route), in a router of the same kind with Fastify's defaults,
 * and the not-found answer asks it for the address as requested.
 */
export function recordAllowedMethods(app: FastifyInstance) {
  const router = FindMyWay({ defaultRoute: () => {} });
  const entered = new Set<string>();
  const methods = new Set<HTTPMethod>();
  const enter = (method: HTTPMethod, url: string) => {
    const key = `${method} ${url}`;
    if (entered.has(key)) return;
    entered.add(key);
    methods.add(method);
    router.on(method, url, () => {});
  };
  app.addHook('onRoute', (route: RouteOptions) => {
    for (const method of [route.method].flat() as HTTPMethod[]) {
      enter(method, route.url);
      // Fastify answers HEAD wherever it answers GET (exposeHeadRoutes).
      if (method === 'GET' && route.exposeHeadRoute !== false) enter('HEAD', route.url);
    }
  });
  return {
    /** The methods `path` (without its query) answers to, in a stable order; empty: no such address. */
    allowedFor(path: string): HTTPMethod[] {
      return [...methods].filter((method) => router.find(method, path) !== null).sort();
    },
  };
}

export type AllowedMethods = ReturnType<typeof recordAllowedMethods>;
