import type { WhatsappStatus } from '../../db/schema/whatsapp.ts';
import { MAX_WEBHOOK_ID_CHARS, storableDate } from '../../lib/storable.ts';

/**
 * One WhatsApp Cloud API delivery (`{object:"whatsapp_business_account", entry:[{id: WABA, changes:[…]}]}`)
 * turned into events for our number. Every entry, change, contact, message and status is read (a POST
 * may batch several); changes of other numbers, other fields and unknown statuses are counted as ignored.
 */
export type WhatsappEvent =
  | { kind: 'message'; message: InboundMessage }
  | { kind: 'reaction'; wamid: string; reactorId: string; emoji: string | null; at: Date }
  | { kind: 'status'; status: StatusUpdate };

export interface InboundMessage {
  wamid: string;
  waId: string;
  profileName: string | null;
  type: string;
  text: string | null;
  details: Record<string, unknown>;
  contextWamid: string | null;
  forwarded: boolean;
  sentAt: Date;
  /**
   * A `system` notice (not written by the person: it opens no window and no thread, and the agent
   * ignores it). `newWaId`: the number the person changed to (user_changed_number).
   */
  system: { type: string; newWaId: string | null } | null;
}

export interface StatusUpdate {
  wamid: string;
  status: WhatsappStatus;
  recipientId: string | null;
  errorCode: number | null;
  errorTitle: string | null;
  at: Date;
}

export interface ParsedWhatsappDelivery {
  events: WhatsappEvent[];
  /** Changes addressed to our phone number id. */
  ours: number;
  ignored: number;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): Json[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const id = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' && v.length <= MAX_WEBHOOK_ID_CHARS
    ? v
    : typeof v === 'number' && Number.isSafeInteger(v)
      ? String(v)
      : null;
/** Meta's error codes are 32-bit integers (the column too); anything else is not kept. */
const INT32_MAX = 2 ** 31 - 1;

/** Meta sends unix seconds as a string ("1749416383"); a number is accepted too. Null when not storable. */
export function parseUnixSeconds(v: unknown): Date | null {
  const n = typeof v === 'string' && /^\d{1,12}$/.test(v) ? Number(v) : typeof v === 'number' ? v : Number.NaN;
  return Number.isFinite(n) && n > 0 ? storableDate(new Date(n * 1000)) : null;
}

export const STATUS_RANK: Record<WhatsappStatus, number> = { sent: 1, delivered: 2, read: 3, failed: 4 };
const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'sticker', 'document']);

export function parseWhatsappDelivery(body: unknown, phoneNumberId: string | null): ParsedWhatsappDelivery {
  const root = obj(body);
  const result: ParsedWhatsappDelivery = { events: [], ours: 0, ignored: 0 };
  for (const entry of arr(root['entry'])) {
    for (const change of arr(entry['changes'])) {
      const value = obj(change['value']);
      const to = id(obj(value['metadata'])['phone_number_id']);
      if (root['object'] !== 'whatsapp_business_account' || change['field'] !== 'messages' || !to || to !== phoneNumberId) {
        result.ignored += 1;
        continue;
      }
      result.ours += 1;
      const names = new Map<string, string | null>();
      for (const contact of arr(value['contacts'])) {
        const waId = id(contact['wa_id']);
        if (waId) names.set(waId, str(obj(contact['profile'])['name']));
      }
      for (const item of arr(value['messages'])) {
        const event = toMessageEvent(item, names);
        if (event) result.events.push(event);
        else result.ignored += 1;
      }
      for (const item of arr(value['statuses'])) {
        const status = toStatus(item);
        if (status) result.events.push({ kind: 'status', status });
        else result.ignored += 1;
      }
    }
  }
  return result;
}

function toMessageEvent(item: Json, names: Map<string, string | null>): WhatsappEvent | null {
  const wamid = id(item['id']);
  const from = id(item['from']);
  const type = str(item['type']);
  if (!wamid || !from || !type) return null;
  const at = parseUnixSeconds(item['timestamp']) ?? new Date();
  const body = obj(item[type]);
  if (type === 'reaction') {
    const target = id(body['message_id']);
    if (!target) return null;
    // Removal: Meta leaves `emoji` out (or empty).
    return { kind: 'reaction', wamid: target, reactorId: from, emoji: str(body['emoji']), at };
  }
  const context = obj(item['context']);
  let text: string | null = null;
  let details: Json = body;
  if (type === 'text') {
    text = str(body['body']);
    details = {};
  } else if (MEDIA_TYPES.has(type)) {
    text = str(body['caption']);
  } else if (type === 'location') {
    text = str(body['name']) ?? str(body['address']);
  } else if (type === 'contacts') {
    const cards = arr(item['contacts']);
    details = { contacts: cards };
    const shown = cards.map((c) => str(obj(c['name'])['formatted_name']) ?? str(obj(c['name'])['first_name'])).filter(Boolean);
    text = shown.length ? shown.join(', ') : null;
  } else if (type === 'interactive') {
    const reply = obj(body['button_reply'] ?? body['list_reply'] ?? body['nfm_reply']);
    text = str(reply['title']) ?? str(reply['body']);
  } else if (type === 'button') {
    text = str(body['text']) ?? str(body['payload']);
  } else if (type === 'unsupported') {
    details = { errors: arr(item['errors']) };
  }
  const system =
    type === 'system' ? { type: str(body['type']) ?? 'unknown', newWaId: id(body['wa_id']) ?? id(body['new_wa_id']) } : null;
  const errors = arr(item['errors']);
  if (errors.length && type !== 'unsupported') details = { ...details, errors };
  return {
    kind: 'message',
    message: {
      wamid,
      waId: from,
      profileName: names.get(from) ?? null,
      type,
      text,
      details,
      contextWamid: id(context['id']),
      forwarded: context['forwarded'] === true || context['frequently_forwarded'] === true,
      sentAt: at,
      system,
    },
  };
}

function toStatus(item: Json): StatusUpdate | null {
  const wamid = id(item['id']);
  const status = str(item['status']);
  if (!wamid || !status || !Object.hasOwn(STATUS_RANK, status)) return null;
  const error = arr(item['errors'])[0];
  const code = error ? Number(error['code']) : Number.NaN;
  return {
    wamid,
    status: status as WhatsappStatus,
    recipientId: id(item['recipient_id']),
    errorCode: Number.isSafeInteger(code) && Math.abs(code) <= INT32_MAX ? code : null,
    errorTitle: error ? (str(error['title']) ?? str(error['message'])) : null,
    at: parseUnixSeconds(item['timestamp']) ?? new Date(),
  };
}
