import type { WhatsappConfig } from '../../config.ts';
import type { Database, Tx } from '../../db/client.ts';
import { customerFileHeaders } from '../../lib/customer-file.ts';
import { AppError } from '../../lib/errors.ts';
import { storableJson } from '../../lib/storable.ts';
import type { Cipher } from '../../lib/secrets.ts';
import type { Clock } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import type { CloudClient, Template } from './cloud.client.ts';
import { otherWaIdForm } from './phone.ts';
import { fillTemplate } from './template-text.ts';
import { parseWhatsappDelivery } from './webhook-parse.ts';
import * as repo from './whatsapp.repo.ts';
import { dbDate, dbIso } from '../../db/dates.ts';

/** Free text goes out only within 24 hours of the contact's last message (Meta's service window). */
export const WINDOW_MS = 24 * 3600 * 1000;
/** WhatsApp's limit for a text body. */
export const MAX_TEXT_CHARS = 4096;

/** Runs in the transaction that stores a new inbound message (the sales agent's claim hangs here). */
export type WhatsappNewMessageHook = (
  tx: Tx,
  message: { wamid: string; conversationId: string; waId: string; text: string | null; sentAt: Date },
  channel: { phoneNumberId: string; agentEnabled: boolean },
  now: Date,
) => Promise<void>;

export interface WhatsappServiceDeps {
  db: Database;
  config: WhatsappConfig;
  cipher: Cipher;
  clock: Clock;
  logger: Logger;
  cloud: CloudClient;
  hooks: { onNewMessage?: WhatsappNewMessageHook };
}

export interface IngestReport {
  messages: number;
  duplicates: number;
  statuses: number;
  reactions: number;
  ignored: number;
}

const iso = dbIso;
const parseJson = <T>(v: T | string | null): T | null => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

export function conversationWire(row: repo.ConversationRow, now: Date) {
  const lastInbound = row.last_inbound_at === null ? null : dbDate(row.last_inbound_at);
  return {
    id: row.id,
    channel: 'whatsapp' as const,
    wa_id: row.wa_id,
    profile_name: row.profile_name,
    last_message_text: row.last_message_text,
    last_message_direction: row.last_message_direction,
    last_message_at: iso(row.last_message_at),
    /** Until when free text may be sent (null: the contact never wrote). */
    window_closes_at: lastInbound ? new Date(lastInbound.getTime() + WINDOW_MS).toISOString() : null,
    window_open: lastInbound !== null && now.getTime() - lastInbound.getTime() < WINDOW_MS,
  };
}
export type WhatsappConversationWire = ReturnType<typeof conversationWire>;

export function messageWire(row: repo.MessageRow) {
  const details = parseJson(row.details) ?? {};
  const mediaId = typeof details['id'] === 'string' ? details['id'] : null;
  return {
    wamid: row.wamid,
    direction: row.direction,
    type: row.type,
    text: row.text,
    details,
    /** The proxy path of an image, audio, video, sticker or document (the token stays on the server). */
    media_url: mediaId ? `/api/superadmin/whatsapp/media?id=${encodeURIComponent(mediaId)}` : null,
    context_wamid: row.context_wamid,
    forwarded: row.forwarded,
    sent_at: iso(row.sent_at),
    status: row.status,
    status_at: iso(row.status_at),
    error_code: row.error_code,
    error_title: row.error_title,
    reactions: parseJson(row.reactions) ?? [],
  };
}
export type WhatsappMessageWire = ReturnType<typeof messageWire>;

const DIGITS = /^[0-9]{1,30}$/;

export function createWhatsappService(deps: WhatsappServiceDeps) {
  const { db, config, cipher, clock, logger, cloud, hooks } = deps;

  async function channelOrThrow() {
    const channel = await repo.getChannel(db.orm);
    if (!channel) throw new AppError('channel_not_connected', 'no WhatsApp number is set up yet');
    return channel;
  }

  async function conversationOf(channel: repo.ChannelRow, id: string) {
    const conversation = await repo.getConversation(db.orm, id);
    if (!conversation || conversation.phone_number_id !== channel.phone_number_id) {
      throw new AppError('not_found', `conversation ${id} not found`);
    }
    return conversation;
  }

  async function storeSent(
    channel: repo.ChannelRow,
    conversation: repo.ConversationRow,
    wamid: string,
    m: { type: string; text: string | null; details: Record<string, unknown> },
  ) {
    const now = clock.now();
    await db.orm.transaction(async (tx) => {
      await repo.insertMessage(tx, {
        wamid,
        conversationId: conversation.id,
        direction: 'outbound',
        type: m.type,
        text: m.text,
        details: m.details,
        contextWamid: null,
        forwarded: false,
        sentAt: now,
        source: 'send',
        now,
      });
    });
    const rows = await repo.listMessages(db.orm, conversation.id);
    const row = rows.find((r) => r.wamid === wamid);
    logger.info({ whatsapp: { wamid, type: m.type, phoneNumberId: channel.phone_number_id } }, 'whatsapp message sent');
    return row ? messageWire(row) : null;
  }

  /** A Graph call; a refused token (190 / HTTP 401) marks the channel before the error goes on. */
  async function graph<T>(channel: repo.ChannelRow, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof AppError && err.code === 'reconnect_required') {
        await repo.markReconnectRequired(db.orm, channel.phone_number_id, err.message, clock.now());
        logger.warn({ whatsapp: { phoneNumberId: channel.phone_number_id } }, 'whatsapp token refused: channel to reconnect');
      }
      throw err;
    }
  }

  /**
   * One send to the contact of a thread. An Argentine mobile refused with 131030 (not in the allowed
   * list) is tried once more with the other spelling (549… ↔ 54…); the spelling that worked is kept
   * on the thread, so the next send goes straight to it.
   */
  async function sendTo(channel: repo.ChannelRow, conversation: repo.ConversationRow, message: Record<string, unknown>) {
    if (channel.reconnect_required) {
      throw new AppError('reconnect_required', 'WhatsApp refused the token: save the channel again with a new token');
    }
    const token = cipher.decrypt(channel.token_encrypted);
    const first = conversation.send_to ?? conversation.wa_id;
    try {
      return await graph(channel, () => cloud.send(channel.phone_number_id, token, { to: first, ...message }));
    } catch (err) {
      const other = otherWaIdForm(first);
      if (!(err instanceof AppError) || err.code !== 'recipient_not_allowed' || other === null) throw err;
      const wamid = await graph(channel, () => cloud.send(channel.phone_number_id, token, { to: other, ...message }));
      await repo.setSendTo(db.orm, conversation.id, other);
      logger.info(
        { whatsapp: { conversationId: conversation.id, refused: first, sentTo: other } },
        'whatsapp number spelling switched',
      );
      return wamid;
    }
  }

  return {
    sendEnabled: () => config.sendEnabled,

    async status() {
      const channel = await repo.getChannel(db.orm);
      return {
        /** Without an app secret nothing can be verified: the webhook refuses every delivery. */
        configured: config.webhookSecrets.length > 0,
        missing_settings: [
          ...(config.webhookSecrets.length ? [] : ['WHATSAPP_APP_SECRET']),
          ...(config.verifyToken ? [] : ['WHATSAPP_VERIFY_TOKEN']),
        ],
        connected: channel !== null,
        /** Meta refused the token: save the channel again with a new one (nothing is sent meanwhile). */
        reconnect_required: channel?.reconnect_required ?? false,
        reconnect_reason: channel?.reconnect_reason ?? null,
        phone_number_id: channel?.phone_number_id ?? null,
        waba_id: channel?.waba_id ?? null,
        display_phone_number: channel?.display_phone_number ?? null,
        agent_enabled: channel?.agent_enabled ?? false,
        send_enabled: config.sendEnabled,
        last_webhook_at: iso(channel?.last_webhook_at ?? null),
      };
    },

    /** The operator (panel or CLI) sets up the number; the token is kept encrypted, never shown again. */
    async setupChannel(input: { phone_number_id: string; waba_id: string; token: string; display_phone_number?: string | null }) {
      const problems: { path: string; message: string }[] = [];
      if (!DIGITS.test(input.phone_number_id))
        problems.push({ path: 'phone_number_id', message: 'must be the numeric phone number id' });
      if (!DIGITS.test(input.waba_id))
        problems.push({ path: 'waba_id', message: 'must be the numeric WhatsApp Business Account id' });
      if (input.token.trim().length < 20) problems.push({ path: 'token', message: 'must be the system user access token' });
      const display = input.display_phone_number?.trim() || null;
      if (display !== null && !/^\+?[0-9 ()-]{6,25}$/.test(display))
        problems.push({ path: 'display_phone_number', message: 'must be a phone number' });
      if (problems.length)
        throw new AppError('validation_failed', 'the WhatsApp channel settings are not valid', { details: problems });
      const now = clock.now();
      await db.orm.transaction((tx) =>
        repo.saveChannel(tx, {
          phoneNumberId: input.phone_number_id,
          wabaId: input.waba_id,
          displayPhoneNumber: display,
          tokenEncrypted: cipher.encrypt(input.token.trim()),
          now,
        }),
      );
      return this.status();
    },

    async setAgentEnabled(enabled: boolean) {
      if (!(await db.orm.transaction((tx) => repo.setAgentEnabled(tx, enabled, clock.now())))) {
        throw new AppError('channel_not_connected', 'no WhatsApp number is set up yet');
      }
      return this.status();
    },

    /** One webhook delivery, in one transaction: all of it is stored or none (then Meta retries). */
    async ingest(body: unknown): Promise<IngestReport> {
      const channel = await repo.getChannel(db.orm);
      // A NUL or half an emoji anywhere in it must not make the delivery fail (and Meta retry it forever).
      const parsed = parseWhatsappDelivery(storableJson(body), channel?.phone_number_id ?? null);
      const report: IngestReport = { messages: 0, duplicates: 0, statuses: 0, reactions: 0, ignored: parsed.ignored };
      if (!channel || parsed.ours === 0) return report;
      const now = clock.now();
      await db.orm.transaction(async (tx) => {
        await repo.touchWebhook(tx, channel.phone_number_id, now);
        for (const event of parsed.events) {
          if (event.kind === 'status') {
            await repo.applyStatus(tx, event.status, now);
            report.statuses += 1;
          } else if (event.kind === 'reaction') {
            await repo.upsertReaction(tx, event);
            report.reactions += 1;
          } else if (event.message.system) {
            // A notice from WhatsApp (the person changed number, or their security code): kept in the
            // thread it belongs to; it opens no thread, no window and no agent turn.
            const m = event.message;
            const system = event.message.system;
            const conversationId = await repo.findConversation(tx, channel.phone_number_id, m.waId);
            if (!conversationId) {
              report.ignored += 1;
              continue;
            }
            if (
              !(await repo.insertMessage(tx, {
                ...m,
                conversationId,
                direction: 'inbound',
                source: 'webhook',
                now,
                counts: false,
              }))
            ) {
              report.duplicates += 1;
              continue;
            }
            report.messages += 1;
            if (system.type === 'user_changed_number' && system.newWaId) {
              await repo.moveConversation(tx, conversationId, channel.phone_number_id, system.newWaId);
            }
          } else {
            const m = event.message;
            const conversationId = await repo.upsertConversation(tx, {
              phoneNumberId: channel.phone_number_id,
              waId: m.waId,
              profileName: m.profileName,
              now,
            });
            const inserted = await repo.insertMessage(tx, {
              ...m,
              conversationId,
              direction: 'inbound',
              source: 'webhook',
              now,
            });
            if (!inserted) {
              report.duplicates += 1;
              continue;
            }
            report.messages += 1;
            await hooks.onNewMessage?.(
              tx,
              { wamid: m.wamid, conversationId, waId: m.waId, text: m.text, sentAt: m.sentAt },
              { phoneNumberId: channel.phone_number_id, agentEnabled: channel.agent_enabled },
              now,
            );
          }
        }
      });
      return report;
    },

    async listConversations() {
      const channel = await repo.getChannel(db.orm);
      const now = clock.now();
      return channel ? (await repo.listConversations(db.orm, channel.phone_number_id)).map((r) => conversationWire(r, now)) : [];
    },

    async listMessages(conversationId: string) {
      const channel = await channelOrThrow();
      const conversation = await conversationOf(channel, conversationId);
      return {
        conversation: conversationWire(conversation, clock.now()),
        messages: (await repo.listMessages(db.orm, conversation.id)).map(messageWire),
      };
    },

    /** The approved templates of the WABA the service can fill (only those can be sent outside the window). */
    async templates(): Promise<Template[]> {
      const channel = await channelOrThrow();
      const all = await graph(channel, () => cloud.templates(channel.waba_id, cipher.decrypt(channel.token_encrypted)));
      return all.filter((t) => t.status.toUpperCase() === 'APPROVED' && t.unsupported === null);
    },

    /** Free text inside the 24-hour window; outside it, a window_closed error (choose a template). */
    async sendText(input: { conversation_id: string; text: string }) {
      const channel = await channelOrThrow();
      const conversation = await conversationOf(channel, input.conversation_id);
      const text = input.text.trim();
      if (text === '' || text.length > MAX_TEXT_CHARS) {
        throw new AppError('validation_failed', `text must have 1 to ${MAX_TEXT_CHARS} characters`, {
          details: [{ path: 'text', message: `1 to ${MAX_TEXT_CHARS} characters` }],
        });
      }
      if (!conversationWire(conversation, clock.now()).window_open) {
        throw new AppError('window_closed', 'more than 24 hours since the contact last wrote: send an approved template', {
          details: [{ path: 'meta_code', message: '131047' }],
        });
      }
      const wamid = await sendTo(channel, conversation, {
        type: 'text',
        text: { preview_url: false, body: text },
      });
      return storeSent(channel, conversation, wamid, { type: 'text', text, details: {} });
    },

    /**
     * An approved template (any time). `parameters` are the body's values in the order of
     * `placeholders` ({{1}}, {{2}}… by number; named ones in order of appearance, sent with their name).
     */
    async sendTemplate(input: { conversation_id: string; name: string; language: string; parameters: string[] }) {
      const channel = await channelOrThrow();
      const conversation = await conversationOf(channel, input.conversation_id);
      const token = cipher.decrypt(channel.token_encrypted);
      if (channel.reconnect_required) {
        throw new AppError('reconnect_required', 'WhatsApp refused the token: save the channel again with a new token');
      }
      const template = (await graph(channel, () => cloud.templates(channel.waba_id, token))).find(
        (t) => t.name === input.name && t.language === input.language,
      );
      if (template?.status.toUpperCase() !== 'APPROVED') {
        throw new AppError('validation_failed', `template ${input.name} (${input.language}) is not an approved template`, {
          details: [{ path: 'name', message: 'not an approved template of this account' }],
        });
      }
      if (template.unsupported !== null) {
        throw new AppError(
          'template_unsupported',
          `template ${input.name} (${input.language}) has ${template.unsupported}: only body text values can be sent from here`,
          { details: [{ path: 'name', message: template.unsupported }] },
        );
      }
      if (input.parameters.length !== template.parameters || input.parameters.some((p) => p.trim() === '')) {
        throw new AppError('validation_failed', `template ${input.name} takes ${template.parameters} parameters`, {
          details: [{ path: 'parameters', message: `exactly ${template.parameters} non-empty values` }],
        });
      }
      const named = template.parameter_format === 'NAMED';
      const parameters = input.parameters.map((text, i) => ({
        type: 'text',
        ...(named ? { parameter_name: template.placeholders[i] } : {}),
        text,
      }));
      const wamid = await sendTo(channel, conversation, {
        type: 'template',
        template: {
          name: template.name,
          language: { policy: 'deterministic', code: template.language },
          ...(template.parameters ? { components: [{ type: 'body', parameters }] } : {}),
        },
      });
      const shown = template.body ? fillTemplate(template.body, template.placeholders, input.parameters) : `[${template.name}]`;
      return storeSent(channel, conversation, wamid, {
        type: 'template',
        text: shown,
        details: { name: template.name, language: template.language, parameters: input.parameters },
      });
    },

    /** A stored message's media, fetched with the token on the server and streamed to the operator. */
    async openMedia(mediaId: string) {
      const channel = await channelOrThrow();
      const owned = await repo.mediaOwned(db.orm, mediaId);
      if (!owned) throw new AppError('not_found', `media ${mediaId} not found`);
      const token = cipher.decrypt(channel.token_encrypted);
      const info = await graph(channel, () => cloud.mediaInfo(mediaId, token));
      const res = await graph(channel, () => cloud.download(info.url, token));
      const type = res.headers.get('content-type') ?? info.mimeType ?? owned.mime_type ?? 'application/octet-stream';
      const length = res.headers.get('content-length');
      return {
        headers: {
          ...customerFileHeaders(type),
          'cache-control': 'private, no-store',
          ...(length ? { 'content-length': length } : {}),
        },
        body: res.body,
      };
    },
  };
}

export type WhatsappService = ReturnType<typeof createWhatsappService>;
