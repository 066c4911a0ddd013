import { parseOptions, positiveInt, requireOption, UsageError } from './args.ts';
import { type Command, define } from './command.ts';
import { cliCtx } from '../http/request-context.ts';

/** `--header "Name: value"` → {Name: value}; the value keeps inner colons. */
function parseHeaders(values: string[] | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const raw of values ?? []) {
    const colon = raw.indexOf(':');
    if (colon < 1) throw new UsageError(`--header must look like "Name: value" (got "${raw}")`);
    headers[raw.slice(0, colon).trim()] = raw.slice(colon + 1).trim();
  }
  return headers;
}

function parseEvents(value: string | undefined): string[] | null {
  if (value === undefined) return null;
  const events = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (events.length === 0) throw new UsageError('--events needs at least one event name');
  return events;
}

/** `webhook add|list|remove`: a company's outbound webhook endpoints. */
export const WEBHOOK_COMMANDS: Command[] = [
  define({
    words: ['webhook', 'add'],
    parse: (args) => {
      const o = parseOptions(args, {
        company: { type: 'string' },
        url: { type: 'string' },
        events: { type: 'string' },
        header: { type: 'string', multiple: true },
        description: { type: 'string' },
        secret: { type: 'string' },
      });
      return {
        companyId: positiveInt(o.company, 'company'),
        url: requireOption(o.url, 'url'),
        events: parseEvents(o.events),
        headers: parseHeaders(o.header),
        description: o.description,
        secret: o.secret,
        json: o.json,
      };
    },
    async run(container, { companyId, url, events, headers, description, secret }) {
      const created = await container.webhooks.endpoints.createEndpoint(cliCtx(companyId), {
        url,
        events,
        headers,
        ...(description !== undefined ? { description } : {}),
        ...(secret !== undefined ? { secret } : {}),
      });
      const { endpoint } = created;
      return {
        json: { endpoint: { id: endpoint.id, url: endpoint.url }, secret: created.secret },
        text: [
          `Webhook creado: ${endpoint.id} → ${endpoint.url}`,
          `Eventos: ${endpoint.events ? endpoint.events.join(', ') : 'todos'}`,
          `Secreto de firma: ${created.secret}`,
          'Guardalo ahora: no se vuelve a mostrar.',
        ].join('\n'),
      };
    },
  }),
  define({
    words: ['webhook', 'list'],
    parse: (args) => {
      const o = parseOptions(args, { company: { type: 'string' } });
      return { companyId: positiveInt(o.company, 'company'), json: o.json };
    },
    async run(container, { companyId }) {
      const endpoints = await container.webhooks.endpoints.listEndpoints(companyId);
      const lines = endpoints.map(
        (e) =>
          `${e.id}  ${e.enabled ? 'activo    ' : `inactivo (${e.disabled_reason})`}  ${e.url}  eventos: ${e.events ? e.events.join(', ') : 'todos'}`,
      );
      return {
        json: { endpoints },
        text: endpoints.length ? lines.join('\n') : `La empresa #${companyId} no tiene webhooks.`,
      };
    },
  }),
  define({
    words: ['webhook', 'remove'],
    parse: (args) => {
      const o = parseOptions(args, { company: { type: 'string' }, id: { type: 'string' } });
      return { companyId: positiveInt(o.company, 'company'), id: requireOption(o.id, 'id'), json: o.json };
    },
    async run(container, { companyId, id }) {
      const removed = await container.webhooks.endpoints.removeEndpoint(cliCtx(companyId), id);
      return { json: { removed }, text: `Webhook eliminado: ${removed.id}` };
    },
  }),
];
