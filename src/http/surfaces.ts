import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest, onRequestHookHandler, preHandlerHookHandler, RouteOptions } from 'fastify';
import type { App } from './app.types.ts';

/**
 * Access is decided where a route is registered: every route lives inside exactly one surface, an
 * encapsulated plugin that owns its guard. A route registered outside every surface, or inside two,
 * stops the application from starting (`enforceSurfaces`), so nothing becomes public by omission.
 */
export const SURFACES = [
  'public',
  'integration',
  'scanner',
  'channel-webhook',
  'cron',
  'session',
  'member',
  'admin',
  'superadmin',
  'merchant',
] as const;
export type SurfaceName = (typeof SURFACES)[number];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The surfaces this route was registered in (exactly one, or the app refuses to start). */
    surfaces?: SurfaceName[];
  }
}

export interface SurfaceGuard {
  /** Runs before the body is read: sessions and keys, so a refused caller costs no parsing. */
  onRequest?: onRequestHookHandler;
  /** Runs after validation: guards that need the parsed query (the scanner token). */
  preHandler?: preHandlerHookHandler;
  /** Checks each route as it is registered (throwing stops the start): e.g. that it declares its access. */
  route?: (route: RouteOptions) => void;
}

/** Registers `register`'s routes in the surface `name`, behind `guard`. */
export async function registerSurface(
  app: App,
  name: SurfaceName,
  guard: SurfaceGuard,
  register: (scope: App) => void | Promise<void>,
): Promise<void> {
  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    scope.addHook('onRoute', (route) => {
      // A fresh config object: fastify shares a route's config with the HEAD route it adds for a GET.
      const surfaces = route.config?.surfaces ?? [];
      route.config = { ...route.config, surfaces: surfaces.includes(name) ? surfaces : [...surfaces, name] };
      guard.route?.(route);
    });
    if (guard.onRequest) scope.addHook('onRequest', guard.onRequest);
    if (guard.preHandler) scope.addHook('preHandler', guard.preHandler);
    await register(scope);
  });
}

export interface RouteSurface {
  method: string;
  url: string;
  surfaces: SurfaceName[];
}

/**
 * Records every route as it is registered and refuses to start when one is not in exactly one
 * surface. Returns the list, for the test that walks it.
 */
export function enforceSurfaces(app: App): () => RouteSurface[] {
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    routes.push(route);
  });
  const list = () =>
    routes.map((r) => ({
      method: ([] as string[]).concat(r.method).join(','),
      url: r.url,
      surfaces: r.config?.surfaces ?? [],
    }));
  app.addHook('onReady', async () => {
    const wrong = list().filter((r) => r.surfaces.length !== 1);
    if (wrong.length > 0) {
      const names = wrong.map((r) => `${r.method} ${r.url} (${r.surfaces.join(', ') || 'no surface'})`).join('; ');
      throw new Error(`every route must be registered in exactly one surface (src/http/surfaces.ts): ${names}`);
    }
  });
  return list;
}

/** Pages live outside /api: a refused page visitor is redirected or shown a page, an API caller gets JSON. */
export function isApiRequest(request: FastifyRequest): boolean {
  const url = request.routeOptions.url ?? request.url;
  return url.startsWith('/api/');
}

export type PageRefusal = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> | unknown;
