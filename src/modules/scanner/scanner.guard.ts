import type { FastifyRequest } from 'fastify';
import { setActor } from '../../http/request-context.ts';
import type { SurfaceGuard } from '../../http/surfaces.ts';
import { AppError } from '../../lib/errors.ts';
import { checkParameters } from './scanner.routes.ts';
import type { ScannerService } from './scanner.service.ts';

/**
 * The guard of the scanner-token surface. It runs after validation so that a missing parameter is
 * the contract's 400 before any 401; then the per-company token must be valid (401).
 */
export function scannerGuard(scanner: ScannerService): SurfaceGuard {
  return {
    preHandler: async (request: FastifyRequest) => {
      if (request.method === 'OPTIONS') return; // CORS preflight: no token, nothing served
      checkParameters(request);
      const { token } = request.query as { token: string };
      // The cached token → company answer: no company row is read per lookup (that read, added with
      // the surfaces, cost a database round trip on every scan; docs/decisiones.md).
      // The token as sent (not trimmed): the lookup after the guard took it so, and a padded token was refused there.
      const companyId = await scanner.tokenCompany(token);
      if (companyId === null) throw new AppError('unauthenticated', 'invalid scanner token');
      setActor(request.ctx, { kind: 'scanner', companyId });
    },
  };
}
