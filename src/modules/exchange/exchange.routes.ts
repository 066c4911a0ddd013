import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import { errorResponses } from '../../http/error-body.schema.ts';
import { openCorsNoStore, preflight } from '../../http/public-cors.ts';
import type { ExchangeService } from './exchange.service.ts';

export const ExchangeRateBody = Type.Object(
  {
    rate: Type.Number({ description: 'Pesos por dólar (venta)' }),
    source: Type.String({ description: 'De dónde salió: host:casa del proveedor, o fixed' }),
    updated_at: Type.String({ format: 'date-time', description: 'Hora de la cotización según la fuente' }),
  },
  { additionalProperties: false, description: 'Cotización del dólar' },
);

export function registerExchangeRoutes(app: App, exchange: ExchangeService) {
  app.get(
    '/api/exchange',
    {
      onRequest: openCorsNoStore,
      schema: {
        tags: ['Public'],
        operationId: 'getExchangeRate',
        summary: 'Cotización USD → ARS',
        description:
          'Responde desde lo guardado, sin esperar al proveedor: un proceso la actualiza cada 15 minutos. ' +
          'Si nunca se conoció una cotización responde 503 rate_unavailable (nunca se inventa un valor).',
        response: {
          200: ExchangeRateBody,
          ...errorResponses({ 503: 'Todavía no se conoce ninguna cotización (code rate_unavailable)', 500: 'Error interno' }),
        },
      },
    },
    async (_request, reply) => {
      const body = await exchange.currentRate();
      reply.header('cache-control', 'public, max-age=60');
      return body;
    },
  );

  app.options('/api/exchange', { schema: { hide: true } }, async (_request, reply) => preflight(reply));
}
