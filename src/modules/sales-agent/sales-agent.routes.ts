import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import type { Shell } from '../../http/shell.ts';
import { AppError } from '../../lib/errors.ts';
import { parseRfc3339 } from '../../lib/time.ts';
import type { SalesAgentModule } from './sales-agent.module.ts';

const API = '/api/superadmin/instagram/agent';
const STATUSES = ['pending', 'sending', 'sent', 'held', 'handoff', 'skipped', 'cancelled', 'superseded', 'failed'] as const;

// The page's filter form sends empty fields for "any": an empty value means no filter.
const TurnQuery = Type.Object({
  status: Type.Optional(Type.Union([...STATUSES, ''].map((s) => Type.Literal(s)))),
  decision: Type.Optional(Type.Union([Type.Literal('reply'), Type.Literal('handoff'), Type.Literal('')])),
  sender: Type.Optional(Type.String({ maxLength: 100 })),
  channel: Type.Optional(Type.Union([Type.Literal('instagram'), Type.Literal('whatsapp'), Type.Literal('')])),
  q: Type.Optional(Type.String({ maxLength: 200 })),
  before: Type.Optional(Type.String({ format: 'date-time' })),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
});

function filters(query: {
  status?: string;
  decision?: string;
  sender?: string;
  channel?: 'instagram' | 'whatsapp' | '';
  q?: string;
  before?: string;
  limit: number;
}) {
  return {
    limit: query.limit,
    ...(query.channel ? { channel: query.channel } : {}),
    ...(query.status ? { status: query.status } : {}),
    ...(query.decision ? { decision: query.decision } : {}),
    ...(query.sender?.trim() ? { sender: query.sender.trim().replace(/^@/, '') } : {}),
    ...(query.q?.trim() ? { q: query.q.trim() } : {}),
    ...(query.before ? { before: beforeOf(query.before) } : {}),
  };
}

/**
 * The `before` cursor as an instant. Ajv's date-time format lets through what no instant in range
 * is: a leap second (23:59:60, an Invalid Date here) and offsets up to ±23:59 that carry
 * 9999-12-31 into year 10000 (which JavaScript writes "+010000-…"); both were a 500. The house rule
 * for date-times (src/lib/time.ts) refuses them with a 400.
 */
function beforeOf(text: string): Date {
  const at = parseRfc3339(text);
  if (!at) {
    throw new AppError(
      'bad_request',
      `before must be an RFC 3339 date-time with offset within years 0001 to 9999 (got "${text}")`,
      {
        details: [{ path: '/before', message: 'RFC 3339 date-time with offset, years 0001 to 9999, no leap second' }],
      },
    );
  }
  return at;
}

/** The operator's review page of the agent (shadow log) and its JSON API; superadmin surface. */
export function registerSalesAgentRoutes(app: App, { salesAgent, shell }: { salesAgent: SalesAgentModule; shell: Shell }) {
  const service = salesAgent.service;

  app.get('/superadmin/instagram/agent', { schema: { hide: true, querystring: TurnQuery } }, async (request, reply) => {
    const query = request.query;
    return shell.send(request, reply, {
      title: 'Agente de ventas',
      entry: 'superadmin-instagram-agent',
      data: {
        summary: await service.summary(),
        turns: await service.list(filters(query)),
        filters: {
          status: query.status ?? '',
          decision: query.decision ?? '',
          sender: query.sender ?? '',
          channel: query.channel ?? '',
          q: query.q ?? '',
        },
        limit: query.limit,
      },
    });
  });

  app.get(`${API}/turns`, { schema: { hide: true, querystring: TurnQuery } }, async (request) => ({
    turns: await service.list(filters(request.query)),
  }));

  app.get(`${API}/summary`, { schema: { hide: true } }, async () => ({ summary: await service.summary() }));

  app.post(
    `${API}/conversations/:id/resume`,
    { schema: { hide: true, params: Type.Object({ id: Type.String({ format: 'uuid' }) }) } },
    async (request) => service.resume(request.params.id),
  );
}

/** The minute job for an external scheduler (same as the worker's schedule); cron surface. */
export function registerSalesAgentCronRoutes(app: App, { salesAgent }: { salesAgent: SalesAgentModule }) {
  const path = '/api/cron/sales-agent';
  const handler = async () => ({ run: await salesAgent.service.tick() });
  app.get(path, { schema: { hide: true } }, handler);
  app.post(path, { schema: { hide: true } }, handler);
}
