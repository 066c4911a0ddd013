import { readFileSync } from 'node:fs';
import { parseOptions, requireOption, UsageError } from './args.ts';
import { type Command, define } from './command.ts';

/**
 * The WhatsApp channel record from the terminal (docs/operador/whatsapp.md). The token is read from a
 * file, never from the command line (where `ps` and the shell history would keep it).
 */
export const WHATSAPP_COMMANDS: Command[] = [
  define({
    words: ['whatsapp', 'setup'],
    parse: (args) => {
      const o = parseOptions(args, {
        'phone-number-id': { type: 'string' },
        'waba-id': { type: 'string' },
        'token-file': { type: 'string' },
        'display-number': { type: 'string' },
      });
      const file = requireOption(o['token-file'], 'token-file');
      let token: string;
      try {
        token = readFileSync(file, 'utf8').trim();
      } catch (err) {
        throw new UsageError(`--token-file ${file} is not readable: ${(err as Error).message}`);
      }
      return {
        phoneNumberId: requireOption(o['phone-number-id'], 'phone-number-id'),
        wabaId: requireOption(o['waba-id'], 'waba-id'),
        token,
        display: o['display-number'] ?? null,
        json: o.json,
      };
    },
    async run(container, p) {
      const status = await container.whatsapp.service.setupChannel({
        phone_number_id: p.phoneNumberId,
        waba_id: p.wabaId,
        token: p.token,
        display_phone_number: p.display,
      });
      return {
        json: { status },
        text: `Canal de WhatsApp guardado: número ${status.display_phone_number ?? status.phone_number_id} (WABA ${status.waba_id}). El token quedó cifrado.`,
      };
    },
  }),
  define({
    words: ['whatsapp', 'agent'],
    parse: (args) => {
      const o = parseOptions(args, { on: { type: 'boolean' }, off: { type: 'boolean' } });
      if (Boolean(o.on) === Boolean(o.off)) throw new UsageError('give exactly one of --on or --off');
      return { enabled: Boolean(o.on), json: o.json };
    },
    async run(container, { enabled }) {
      const status = await container.whatsapp.service.setAgentEnabled(enabled);
      return {
        json: { status },
        text: enabled ? 'El agente de ventas atiende WhatsApp.' : 'El agente de ventas no atiende WhatsApp.',
      };
    },
  }),
];
