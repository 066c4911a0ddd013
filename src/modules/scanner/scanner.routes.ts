import type { FastifyRequest } from 'fastify';
import type { App } from '../../http/app.types.ts';
import { pointerDetails } from '../../http/error-handler.ts';
import { openCorsNoStore, preflight } from '../../http/public-cors.ts';
import { companyCtx } from '../../http/request-context.ts';
import { AppError, partRefusal } from '../../lib/errors.ts';
import { type ScannerQuery, scannerResponses, ScannerQuery as ScannerQuerySchema } from './scanner.schemas.ts';
import type { ScannerService } from './scanner.service.ts';

const REQUIRED = ['token', 'query'] as const;
const SINGLE = [...REQUIRED, 'companyId'] as const;

/**
 * A missing or empty required parameter is named in a 400 `missing_parameter`; any other bad
 * parameter is a 400 `bad_request` with its path. (A NUL character never gets here: the input guard,
 * a preValidation hook of every route, refuses it before this surface guard runs; src/http/input-guard.ts.)
 */
export function checkParameters(request: FastifyRequest) {
  const query = request.query as Partial<Record<string, unknown>>;
  // `?query=a&query=b` arrives as an array: it is there, just more than once (it said "is required";
  // a repeated companyId, "must be integer", though each copy was one).
  if (Array.isArray(query['token']) || Array.isArray(query['query']) || Array.isArray(query['companyId'])) {
    const repeated = SINGLE.filter((name) => Array.isArray(query[name]));
    throw new AppError('bad_request', `query parameter ${repeated.map((name) => `'${name}'`).join(' and ')} must be given once`, {
      details: repeated.map((name) => ({ path: `/${name}`, message: 'must be given once' })),
    });
  }
  const present = (name: (typeof REQUIRED)[number]) => typeof query[name] === 'string' && (query[name] as string).trim() !== '';
  if (!present('token') || !present('query')) {
    const missing = REQUIRED.filter((name) => !present(name));
    const names = missing.map((name) => `'${name}'`).join(' and ');
    throw new AppError('missing_parameter', `query parameter ${names} ${missing.length > 1 ? 'are' : 'is'} required`, {
      details: missing.map((name) => ({ path: `/${name}`, message: 'is required' })),
    });
  }
  const problem = request.validationError;
  if (problem) {
    // A token longer than any token is one that is not valid: the contract's 401, not a 400 about
    // its format (unless another parameter is wrong too).
    const errors = problem.validation as { instancePath: string; keyword: string }[];
    const others = errors.filter((e) => !(e.instancePath === '/token' && e.keyword === 'maxLength'));
    if (others.length === 0) throw new AppError('unauthenticated', 'invalid scanner token');
    throw partRefusal('querystring', pointerDetails(others as never));
  }
}

export function registerScannerApi(app: App, scanner: ScannerService) {
  app.get(
    '/api/public/scanner',
    {
      attachValidation: true,
      onRequest: openCorsNoStore,
      schema: {
        tags: ['Public'],
        operationId: 'scanProduct',
        summary: 'Consulta de precio por código de barras o nombre',
        description:
          'Solo dígitos es un código y se busca solo como código: código de barras (BC), sku, etiqueta de balanza 20–29 o PLU; ' +
          'si no coincide, 404. Cualquier otra cosa se busca por nombre y marca (sin acentos ni mayúsculas, por cómo suena, ' +
          'con errores de tipeo, plurales, marcas juntas o separadas y tamaños en palabras) y se devuelven hasta 5 alternativas ' +
          'ordenadas con el mismo criterio. Los productos deshabilitados nunca aparecen.',
        querystring: ScannerQuerySchema,
        response: scannerResponses,
      },
    },
    async (request) => {
      // The scanner surface's guard (scanner.guard.ts) checked the parameters and found the token's
      // company: neither is done again here.
      const { token, query, companyId } = request.query as ScannerQuery;
      return scanner.scan({ token, query, companyId, clientIp: request.ip }, companyCtx(request.ctx).companyId);
    },
  );

  app.options('/api/public/scanner', { schema: { hide: true } }, async (_request, reply) => preflight(reply));
}
