import type { App } from '../../http/app.types.ts';
import type { Shell } from '../../http/shell.ts';
import { INBOX_LIST_TIMEOUT_MS, INBOX_POLL_MS } from '../instagram/inbox.page.ts';
import type { WhatsappModule } from './whatsapp.module.ts';
import { MAX_TEXT_CHARS } from './whatsapp.service.ts';

/**
 * The WhatsApp tab of the operator inbox (/superadmin/whatsapp), beside the Instagram one: the
 * channel state and the stored threads in the first paint; the browser then polls the JSON API with
 * the same rules as Instagram (15 s list abort, one retry on an empty first answer).
 */
export function registerWhatsappInboxPage(app: App, { whatsapp, shell }: { whatsapp: WhatsappModule; shell: Shell }) {
  app.get('/superadmin/whatsapp', { schema: { hide: true } }, async (request, reply) => {
    const service = whatsapp.service;
    return shell.send(request, reply, {
      title: 'WhatsApp',
      entry: 'superadmin-whatsapp',
      data: {
        status: await service.status(),
        conversations: await service.listConversations(),
        list_timeout_ms: INBOX_LIST_TIMEOUT_MS,
        poll_ms: INBOX_POLL_MS,
        max_text_chars: MAX_TEXT_CHARS,
      },
    });
  });
}
