import type { InstagramSource } from '../../db/schema/instagram.ts';
import { hmacSha256Hex, safeEqual } from '../../lib/secrets.ts';
import { MAX_WEBHOOK_ID_CHARS } from '../../lib/storable.ts';
import { parseGraphTime } from './graph.client.ts';
import type { AttachmentWrite, MessageWrite } from './instagram.repo.ts';

/** The hub's `X-Channels-Signature`: HMAC-SHA256 hex of the raw body, bare or with a `sha256=` prefix. */
export function verifyChannelsSignature(raw: Buffer, header: string | undefined, secret: string | null): boolean {
  const match = /^(?:sha256=)?([0-9a-fA-F]{64})$/.exec(header?.trim() ?? '');
  if (!match || secret === null) return false;
  return safeEqual(hmacSha256Hex(secret, raw), match[1]!.toLowerCase());
}

export type InboxEvent =
  | { kind: 'message'; message: MessageWrite }
  | { kind: 'deleted'; message: Omit<MessageWrite, 'text' | 'attachments'> }
  | { kind: 'reaction'; mid: string; reactorId: string; reaction: string | null; emoji: string | null; at: Date }
  | { kind: 'read'; accountId: string; participantId: string; mid: string | null; at: Date };

export interface ParsedDelivery {
  events: InboxEvent[];
  /** Entries of our account (a delivery with none is acknowledged and ignored). */
  ours: number;
  ignored: number;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): Json[] => (Array.isArray(v) ? v.map(obj) : []);
const id = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' && v.length <= MAX_WEBHOOK_ID_CHARS
    ? v
    : typeof v === 'number' && Number.isSafeInteger(v)
      ? String(v)
      : null;
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * Turns one Meta delivery (`{object:"instagram", entry:[…]}`, the same body the hub forwards) into
 * inbox events for the connected account. Handles `messaging[]` and `standby[]`, several entries
 * and items per delivery, echoes, deletions, reactions and reads; entries of other accounts and the
 * dashboard's `changes[]` test payload are ignored.
 */
export function parseMetaDelivery(body: unknown, accountId: string | null, source: InstagramSource): ParsedDelivery {
  const root = obj(body);
  const result: ParsedDelivery = { events: [], ours: 0, ignored: 0 };
  if (root['object'] !== 'instagram' || accountId === null) {
    result.ignored = arr(root['entry']).length;
    return result;
  }
  for (const entry of arr(root['entry'])) {
    if (id(entry['id']) !== accountId) {
      result.ignored += 1;
      continue;
    }
    result.ours += 1;
    for (const item of [...arr(entry['messaging']), ...arr(entry['standby'])]) {
      const event = toEvent(item, accountId, source);
      if (event) result.events.push(event);
      else result.ignored += 1;
    }
  }
  return result;
}

function toEvent(item: Json, accountId: string, source: InstagramSource): InboxEvent | null {
  const senderId = id(obj(item['sender'])['id']);
  const recipientId = id(obj(item['recipient'])['id']);
  const at = parseGraphTime(item['timestamp']) ?? new Date();
  if (!senderId || !recipientId) return null;
  const message = obj(item['message']);
  // Sent by our account (through the API or the Instagram app): sender is us, is_echo is set.
  const outbound = message['is_echo'] === true || senderId === accountId;
  const participantId = outbound ? recipientId : senderId;
  const reaction = obj(item['reaction']);
  if (id(reaction['mid'])) {
    const removed = reaction['action'] === 'unreact';
    return {
      kind: 'reaction',
      mid: id(reaction['mid'])!,
      reactorId: senderId,
      reaction: removed ? null : (str(reaction['reaction']) ?? 'other'),
      emoji: removed ? null : str(reaction['emoji']),
      at,
    };
  }
  if ('read' in item) {
    return { kind: 'read', accountId, participantId, mid: id(obj(item['read'])['mid']), at };
  }
  const mid = id(message['mid']);
  if (!mid) return null;
  const base = {
    mid,
    accountId,
    participantId,
    participantUsername: null,
    direction: outbound ? ('outbound' as const) : ('inbound' as const),
    senderId,
    sentAt: at,
    isUnsupported: message['is_unsupported'] === true,
    // An echo we did not store first was written in the Instagram app; the send path clears this
    // flag when its own answer arrives after the echo.
    isExternalEcho: outbound,
    replyToMid: id(obj(message['reply_to'])['mid']),
    source,
  };
  if (message['is_deleted'] === true) return { kind: 'deleted', message: base };
  const attachments: AttachmentWrite[] = arr(message['attachments']).map((a) => ({
    graphId: null,
    type: str(a['type']),
    mimeType: null,
    name: null,
    size: null,
  }));
  return { kind: 'message', message: { ...base, text: str(message['text']), attachments } };
}
