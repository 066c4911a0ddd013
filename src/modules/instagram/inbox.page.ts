import type { App } from '../../http/app.types.ts';
import type { Shell } from '../../http/shell.ts';
import type { InstagramModule } from './instagram.module.ts';
import { MAX_TEXT_BYTES } from './instagram.service.ts';

/** Rule 3 of the inbox: the panel gives the list request 15 seconds. */
export const INBOX_LIST_TIMEOUT_MS = 15_000;
/** New messages appear without reloading: the panel asks again this often while it is visible. */
export const INBOX_POLL_MS = 5_000;

/**
 * The operator's inbox page (/superadmin/instagram): the connection state and the stored threads
 * in the first paint; the browser then asks the JSON API (which schedules the Graph sync) and polls.
 */
export function registerInstagramInboxPage(app: App, { instagram, shell }: { instagram: InstagramModule; shell: Shell }) {
  app.get('/superadmin/instagram', { schema: { hide: true } }, async (request, reply) => {
    const service = instagram.service;
    const status = await service.status();
    return shell.send(request, reply, {
      title: 'Instagram',
      entry: 'superadmin-instagram',
      data: {
        status,
        conversations: await service.storedConversations(),
        list_timeout_ms: INBOX_LIST_TIMEOUT_MS,
        poll_ms: INBOX_POLL_MS,
        max_text_bytes: MAX_TEXT_BYTES,
      },
    });
  });
}
