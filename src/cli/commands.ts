import { migrate } from '../db/migrate.ts';
import { AGENT_COMMANDS } from './agent-commands.ts';
import { type Command, define } from './command.ts';
import { formatCuit } from '../lib/cuit.ts';
import { recordAudit } from '../modules/audit/audit.repo.ts';
import { seedDemo } from '../modules/demo/demo.service.ts';
import { MEMBERSHIP_ROLES, type MembershipRole } from '../modules/users/roles.ts';
import { parseOptions, positiveInt, requireOption, UsageError } from './args.ts';
import { WEBHOOK_COMMANDS } from './webhook-commands.ts';
import { TOKEN_COMMANDS } from './token-commands.ts';
import { FISCAL_COMMANDS } from './fiscal-commands.ts';
import { BOOKS_COMMANDS } from './books-commands.ts';
import { WHATSAPP_COMMANDS } from './whatsapp-commands.ts';
import { cliCtx } from '../http/request-context.ts';

export type { Command, CommandResult } from './command.ts';

export const COMMANDS: Command[] = [
  define({
    words: ['migrate'],
    parse: (args) => parseOptions(args, {}),
    async run(container) {
      // runCli has already migrated; a second pass reports that nothing is pending.
      const applied = await migrate(container.db);
      return {
        json: { applied },
        text: applied.length ? `Migraciones aplicadas: ${applied.join(', ')}` : 'La base está al día.',
      };
    },
  }),
  define({
    words: ['demo'],
    parse: (args) => parseOptions(args, {}),
    async run(container) {
      const demo = await seedDemo(container);
      return {
        json: {
          company: { id: demo.companyId, name: demo.companyName },
          integration_key: demo.integrationKey,
          scanner_token: demo.scannerToken,
          products: demo.products,
          logins: demo.logins,
        },
        text: demo.banner,
      };
    },
  }),
  define({
    words: ['company', 'create'],
    parse: (args) => {
      const o = parseOptions(args, { name: { type: 'string' }, cuit: { type: 'string' } });
      return { name: requireOption(o.name, 'name'), cuit: o.cuit ?? null, json: o.json };
    },
    async run(container, { name, cuit }) {
      const created = await container.companies.createCompany({ name, cuit });
      const { company } = created;
      return {
        json: {
          company: { id: company.id, name: company.name },
          integration_key: created.integrationKey,
          scanner_token: created.scannerToken,
        },
        text: [
          `Empresa creada: #${company.id} ${company.name}${company.cuit ? ` (CUIT ${formatCuit(company.cuit)})` : ''}`,
          `Clave de integración: ${created.integrationKey}`,
          `Token del escáner:    ${created.scannerToken}`,
          'Guardalos ahora: el token del escáner no se vuelve a mostrar.',
        ].join('\n'),
      };
    },
  }),
  define({
    words: ['company', 'keys', 'rotate'],
    parse: (args) => {
      const o = parseOptions(args, {
        company: { type: 'string' },
        integration: { type: 'boolean' },
        scanner: { type: 'boolean' },
      });
      const both = !o.integration && !o.scanner;
      return {
        companyId: positiveInt(o.company, 'company'),
        integration: both || !!o.integration,
        scanner: both || !!o.scanner,
        json: o.json,
      };
    },
    async run(container, { companyId, integration, scanner }) {
      const secrets = await container.db.orm.transaction(async (tx) => {
        const rotated = await container.companies.rotateSecrets(companyId, { integration, scanner }, tx);
        const via = { source: 'cli' };
        if (rotated.integrationKey)
          await recordAudit(tx, { action: 'integration_key.rotated', actor: null, companyId, origin: null, details: via });
        if (rotated.scannerToken)
          await recordAudit(tx, { action: 'scanner_token.rotated', actor: null, companyId, origin: null, details: via });
        return rotated;
      });
      const json: Record<string, unknown> = { company: { id: companyId } };
      const lines = [`Claves nuevas de la empresa #${companyId} (las anteriores dejaron de funcionar):`];
      if (secrets.integrationKey) {
        json['integration_key'] = secrets.integrationKey;
        lines.push(`Clave de integración: ${secrets.integrationKey}`);
      }
      if (secrets.scannerToken) {
        json['scanner_token'] = secrets.scannerToken;
        lines.push(`Token del escáner:    ${secrets.scannerToken}`);
      }
      return { json, text: lines.join('\n') };
    },
  }),
  define({
    words: ['user', 'create'],
    parse: (args) => {
      const o = parseOptions(args, {
        email: { type: 'string' },
        password: { type: 'string' },
        superadmin: { type: 'boolean' },
        company: { type: 'string' },
        role: { type: 'string' },
      });
      if ((o.company === undefined) !== (o.role === undefined)) throw new UsageError('--company and --role go together');
      if (o.role !== undefined && !MEMBERSHIP_ROLES.includes(o.role as MembershipRole)) {
        throw new UsageError(`--role must be one of ${MEMBERSHIP_ROLES.join(', ')} (got "${o.role}")`);
      }
      return {
        email: requireOption(o.email, 'email'),
        password: requireOption(o.password, 'password'),
        superadmin: !!o.superadmin,
        membership:
          o.company === undefined ? undefined : { companyId: positiveInt(o.company, 'company'), role: o.role as MembershipRole },
        json: o.json,
      };
    },
    async run(container, { email, password, superadmin, membership }) {
      const user = await container.users.createUser({ email, password, superadmin, ...(membership ? { membership } : {}) });
      const roles = [
        superadmin ? 'superadmin' : null,
        membership ? `${membership.role} de la empresa #${membership.companyId}` : null,
      ].filter(Boolean);
      return {
        json: { user: { id: user.id, email: user.email } },
        text: `Usuario creado: #${user.id} ${user.email}${roles.length ? ` (${roles.join(', ')})` : ''}`,
      };
    },
  }),
  define({
    words: ['user', 'disable'],
    parse: (args) => {
      const o = parseOptions(args, { email: { type: 'string' } });
      return { email: requireOption(o.email, 'email'), json: o.json };
    },
    async run(container, { email }) {
      const user = await container.users.disableUser(cliCtx(), email);
      return {
        json: {
          user: { id: user.id, email: user.email, disabled_at: user.disabledAt?.toISOString() ?? null },
          ended_sessions: user.endedSessions,
        },
        text: `Usuario #${user.id} ${user.email} deshabilitado; sesiones cerradas: ${user.endedSessions}.`,
      };
    },
  }),
  define({
    words: ['user', 'password'],
    parse: (args) => {
      const o = parseOptions(args, { email: { type: 'string' }, password: { type: 'string' } });
      return { email: requireOption(o.email, 'email'), password: requireOption(o.password, 'password'), json: o.json };
    },
    async run(container, { email, password }) {
      const user = await container.users.setPassword(cliCtx(), email, password);
      return {
        json: { user: { id: user.id, email: user.email }, ended_sessions: user.endedSessions },
        text: `Contraseña nueva para #${user.id} ${user.email}; sesiones cerradas: ${user.endedSessions}.`,
      };
    },
  }),
  ...AGENT_COMMANDS,
  ...WEBHOOK_COMMANDS,
  ...TOKEN_COMMANDS,
  ...FISCAL_COMMANDS,
  ...BOOKS_COMMANDS,
  ...WHATSAPP_COMMANDS,
];
