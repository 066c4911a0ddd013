import { cliCtx } from '../http/request-context.ts';
import { parseOptions, positiveInt, requireOption, UsageError } from './args.ts';
import { type Command, define } from './command.ts';
import type { Container } from '../container.ts';

async function requireCompany(container: Container, companyId: number) {
  const company = await container.companies.findCompany(companyId);
  if (!company) throw new UsageError(`company ${companyId} does not exist`);
  return company;
}

/** Company API tokens of the merchant API: create (shown once), list, revoke. */
export const TOKEN_COMMANDS: Command[] = [
  define({
    words: ['token', 'create'],
    parse: (args) => {
      const o = parseOptions(args, { company: { type: 'string' }, name: { type: 'string' }, 'read-only': { type: 'boolean' } });
      return {
        companyId: positiveInt(o.company, 'company'),
        name: requireOption(o.name, 'name'),
        scope: o['read-only'] ? ('read' as const) : ('read-write' as const),
        json: o.json,
      };
    },
    async run(container, { companyId, name, scope }) {
      await requireCompany(container, companyId);
      const { token, secret } = await container.apiTokens.create(cliCtx(companyId), { name, scope });
      return {
        json: { token: { id: token.id, name: token.name, scope: token.scope }, secret },
        text: [
          `Token de API creado para la empresa #${companyId}: #${token.id} «${token.name}» (${scope === 'read' ? 'solo lectura' : 'lectura y escritura'})`,
          secret,
          'Guardalo ahora: no se vuelve a mostrar. Usalo como "Authorization: Bearer <token>" en /api/v1.',
        ].join('\n'),
      };
    },
  }),
  define({
    words: ['token', 'list'],
    parse: (args) => {
      const o = parseOptions(args, { company: { type: 'string' } });
      return { companyId: positiveInt(o.company, 'company'), json: o.json };
    },
    async run(container, { companyId }) {
      await requireCompany(container, companyId);
      const tokens = await container.apiTokens.list(companyId);
      const lines = tokens.map(
        (t) =>
          `#${t.id} ${t.hint} «${t.name}» ${t.scope}${t.revoked_at ? ' (revocado)' : ''}${t.last_used_at ? `, último uso ${t.last_used_at}` : ''}`,
      );
      return { json: { tokens }, text: lines.length ? lines.join('\n') : 'La empresa no tiene tokens de API.' };
    },
  }),
  define({
    words: ['token', 'revoke'],
    parse: (args) => {
      const o = parseOptions(args, { company: { type: 'string' }, id: { type: 'string' } });
      return { companyId: positiveInt(o.company, 'company'), id: positiveInt(o.id, 'id'), json: o.json };
    },
    async run(container, { companyId, id }) {
      await requireCompany(container, companyId);
      const token = await container.apiTokens.revoke(cliCtx(companyId), id);
      return { json: { token }, text: `Token #${token.id} «${token.name}» revocado.` };
    },
  }),
];
