import { randomBytes } from 'node:crypto';
import type { InstagramConfig } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import type { InstagramSource } from '../../db/schema/instagram.ts';
import { storableJson } from '../../lib/storable.ts';
import { customerFileHeaders } from '../../lib/customer-file.ts';
import { AppError } from '../../lib/errors.ts';
import { type Cipher, sha256Hex } from '../../lib/secrets.ts';
import { type Clock, DAY_MS } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import { type GraphClient, GraphError, type GraphMessage, isGraphError } from './graph.client.ts';
import * as repo from './instagram.repo.ts';
import { type InboxEvent, parseMetaDelivery } from './webhook-ingest.ts';
import type { InstagramResultCode } from './oauth-result.ts';

/** Scopes of the connection (inbox rule 8): basic access and managing messages. */
export const SCOPES = ['instagram_business_basic', 'instagram_business_manage_messages'] as const;
export const MESSAGES_SCOPE = 'instagram_business_manage_messages';
/** The literal sent as enable_fb_login. Meta documents 0/1; the contract asks for false. One place to switch it. */
export const ENABLE_FB_LOGIN = 'false';
export const CALLBACK_PATH = '/superadmin/instagram/callback';
const STATE_TTL_MS = 10 * 60_000;
/** Refresh rules: the token is at least this old… */
export const REFRESH_MIN_AGE_MS = DAY_MS;
/** …and has fewer than this many days left. */
export const REFRESH_WINDOW_MS = 10 * DAY_MS;
/** A sync holds its claim at most this long (a crashed worker's claim lapses before the next minute). */
const SYNC_LEASE_MS = 55_000;
/** Scheduled runs (the minute job, the cron route) skip when a run finished less than this long ago. */
export const SCHEDULED_MIN_INTERVAL_MS = 45_000;
/** The webhook subscription is checked at most this often by the backup sync. */
const SUBSCRIPTION_CHECK_MS = 15 * 60_000;
/** Threads backfilled per sync run (each one is a rate-limited Graph read). */
const BACKFILL_PER_RUN = 5;
export const MAX_TEXT_BYTES = 1000;

export interface SessionRef {
  sessionId: string;
  userId: number;
}

export type CallbackOutcome =
  | { ok: true; username: string | null; accountId: string; subscribed: boolean; replaced: boolean }
  | {
      ok: false;
      code: InstagramResultCode;
      detail?: string;
    };

export interface SyncReport {
  ran: boolean;
  /** busy: another process holds the claim, or (scheduled runs) one finished less than 45 s ago. */
  reason?: 'not_configured' | 'not_connected' | 'reconnect_required' | 'busy' | 'failed';
  conversations?: number;
  new_messages?: number;
  refreshed?: boolean;
  resubscribed?: boolean;
  error?: string;
}

export interface InstagramServiceDeps {
  db: Database;
  config: InstagramConfig;
  publicBaseUrl: string;
  cipher: Cipher;
  clock: Clock;
  logger: Logger;
  graph: GraphClient;
  /** Filled in after construction by modules that react to new messages (the sales agent). */
  hooks?: { onNewMessage?: repo.NewMessageHook };
}

export type InstagramService = ReturnType<typeof createInstagramService>;

export function createInstagramService({
  db,
  config,
  publicBaseUrl,
  cipher,
  clock,
  logger,
  graph,
  hooks = {},
}: InstagramServiceDeps) {
  /** Every path that inserts a message row goes through here, so a new row's hook runs in its transaction. */
  const store = (tx: repo.Q, m: repo.MessageWrite, now: Date) => repo.storeMessage(tx, m, now, hooks.onNewMessage);
  const redirectUri = `${publicBaseUrl}${CALLBACK_PATH}`;
  let background: Promise<unknown> = Promise.resolve();

  const requireConfigured = () => {
    if (!config.configured) {
      throw new AppError(
        'channel_not_configured',
        'the Instagram channel is not configured: set INSTAGRAM_APP_ID and INSTAGRAM_APP_SECRET',
      );
    }
  };

  async function connectedChannel(): Promise<repo.ChannelRow> {
    requireConfigured();
    const channel = await repo.getChannel(db);
    if (!channel) throw new AppError('channel_not_connected', 'no Instagram account is connected yet');
    return channel;
  }

  /** Turns a Graph failure into the API's answer; a rejected token marks the channel first. */
  async function graphFailure(err: unknown, accountId: string, context: 'send' | 'read'): Promise<never> {
    if (!(err instanceof GraphError)) throw err;
    switch (err.kind) {
      case 'reconnect_required':
        await repo.markReconnectRequired(db, accountId, err.message, clock.now());
        throw new AppError('reconnect_required', 'Instagram rejected the token: connect the account again', { cause: err });
      case 'rate_limited':
        throw new AppError('rate_limited', 'Instagram is limiting requests; try again in a minute', {
          headers: { 'retry-after': String(Math.ceil((err.detail.retryAfterMs ?? 60_000) / 1000)) },
          cause: err,
        });
      case 'window_closed':
        throw new AppError('window_closed', 'the 24-hour window to answer this person is closed: they must write first', {
          cause: err,
        });
      case 'not_found':
        if (context === 'send') throw new AppError('recipient_not_found', 'Instagram cannot find that user', { cause: err });
        throw new AppError('upstream_failed', err.message, { cause: err });
      case 'timeout':
        throw new AppError('upstream_timeout', err.message, { cause: err });
      default:
        throw new AppError('upstream_failed', err.message, { cause: err });
    }
  }

  function tokenOf(channel: repo.ChannelRow): string {
    return cipher.decrypt(channel.token_encrypted);
  }

  async function applyEvent(raw: InboxEvent, now: Date): Promise<boolean> {
    // A NUL or half an emoji in a message must not make its storing fail (and the delivery with it).
    const event = storableJson(raw);
    return db.rawTransaction(async (tx) => {
      switch (event.kind) {
        case 'message':
          return store(tx, event.message, now);
        case 'deleted':
          await repo.markMessageDeleted(tx, event.message, now);
          return false;
        case 'reaction':
          await repo.saveReaction(tx, event);
          return false;
        case 'read':
          await repo.saveRead(tx, { ...event, now });
          return false;
      }
    });
  }

  function fromGraph(m: GraphMessage, accountId: string, participantId: string, username: string | null): repo.MessageWrite {
    const outbound = m.fromId === accountId;
    return {
      mid: m.mid,
      accountId,
      participantId,
      participantUsername: username ?? (outbound ? null : m.fromUsername),
      direction: outbound ? 'outbound' : 'inbound',
      senderId: m.fromId ?? (outbound ? accountId : participantId),
      text: m.text === '' ? null : m.text,
      sentAt: m.createdAt ?? clock.now(),
      isUnsupported: false,
      isExternalEcho: false,
      replyToMid: null,
      attachments: m.attachments.map((a) => ({ graphId: a.id, type: null, mimeType: a.mimeType, name: a.name, size: a.size })),
      source: 'sync',
    };
  }

  async function refreshIfDue(
    channel: repo.ChannelRow,
    token: string,
    now: Date,
  ): Promise<{ token: string; refreshed: boolean }> {
    const age = now.getTime() - new Date(channel.token_issued_at).getTime();
    const left = new Date(channel.token_expires_at).getTime() - now.getTime();
    if (left <= 0) {
      await repo.markReconnectRequired(db, channel.account_id, 'the token expired', now);
      throw new GraphError('reconnect_required', 'the Instagram token expired');
    }
    if (age < REFRESH_MIN_AGE_MS || left >= REFRESH_WINDOW_MS) return { token, refreshed: false };
    try {
      const fresh = await graph.refresh(token);
      await repo.saveRefreshedToken(
        db,
        channel.account_id,
        cipher.encrypt(fresh.accessToken),
        new Date(now.getTime() + fresh.expiresInSeconds * 1000),
        now,
      );
      return { token: fresh.accessToken, refreshed: true };
    } catch (err) {
      // Meta refusing the refresh (190, or 100 "Unsupported request") means only a new login helps.
      // A timeout or an unreachable host is retried at the next minute.
      if (isGraphError(err) && !['timeout', 'unavailable', 'rate_limited'].includes(err.kind)) {
        await repo.markReconnectRequired(db, channel.account_id, `token refresh refused: ${err.message}`, now);
        throw new GraphError('reconnect_required', err.message, err.detail, { cause: err });
      }
      throw err;
    }
  }

  async function backfillThread(channel: repo.ChannelRow, token: string, conversation: repo.ConversationRow): Promise<number> {
    let graphId = conversation.graph_id;
    if (!graphId) {
      graphId = await graph.findConversation(channel.account_id, token, conversation.participant_id);
      if (!graphId) return 0;
      await repo.setConversationGraphId(db, conversation.id, graphId);
    }
    const messages = await graph.threadMessages(channel.account_id, token, graphId);
    let added = 0;
    const now = clock.now();
    for (const m of messages) {
      const write = fromGraph(m, channel.account_id, conversation.participant_id, conversation.participant_username);
      if (await db.rawTransaction((tx) => store(tx, write, now))) added += 1;
    }
    return added;
  }

  function scheduleSync() {
    background = background
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .then(() => runSync())
      .catch((err) => logger.error({ err }, 'instagram background sync failed'));
  }

  async function runSync(options: { scheduled?: boolean } = {}): Promise<SyncReport> {
    if (!config.configured) return { ran: false, reason: 'not_configured' };
    const channel = await repo.getChannel(db);
    if (!channel) return { ran: false, reason: 'not_connected' };
    if (channel.reconnect_required) return { ran: false, reason: 'reconnect_required' };
    const interval = options.scheduled ? SCHEDULED_MIN_INTERVAL_MS : 0;
    if (!(await repo.claimSync(db, clock.now(), SYNC_LEASE_MS, interval))) return { ran: false, reason: 'busy' };
    const report: SyncReport = { ran: true, conversations: 0, new_messages: 0, refreshed: false, resubscribed: false };
    let failure: string | null = null;
    try {
      const now = clock.now();
      const due = await refreshIfDue(channel, tokenOf(channel), now);
      const token = due.token;
      report.refreshed = due.refreshed;
      const checkedAt = channel.subscription_checked_at ? new Date(channel.subscription_checked_at).getTime() : 0;
      if (channel.subscribed_at === null || now.getTime() - checkedAt >= SUBSCRIPTION_CHECK_MS) {
        const fields = await graph.subscribedFields(channel.account_id, token);
        if (!fields.includes('messages')) {
          await graph.subscribe(channel.account_id, token);
          report.resubscribed = true;
        }
        await repo.markSubscription(db, channel.account_id, true, now);
      }
      const listed = await graph.listConversations(channel.account_id, token);
      report.conversations = listed.length;
      const stale: repo.ConversationRow[] = [];
      const stored = new Map((await repo.listConversations(db, channel.account_id, 1000)).map((c) => [c.participant_id, c]));
      for (const item of listed) {
        if (!item.participantId) continue;
        const before = stored.get(item.participantId);
        const id = await repo.upsertConversation(db, {
          accountId: channel.account_id,
          participantId: item.participantId,
          username: item.participantUsername,
          graphId: item.graphId,
          now,
        });
        if (item.last?.mid) {
          const write = fromGraph(item.last, channel.account_id, item.participantId, item.participantUsername);
          if (await db.rawTransaction((tx) => store(tx, write, now))) report.new_messages! += 1;
        }
        const knownAt = before?.last_message_at ? new Date(before.last_message_at).getTime() : 0;
        const updatedAt = item.updatedAt?.getTime() ?? 0;
        // Something happened after the newest message we hold: webhooks may have missed it.
        if (updatedAt > knownAt && stale.length < BACKFILL_PER_RUN) {
          const row = await repo.getConversation(db, id);
          if (row) stale.push(row);
        }
      }
      for (const conversation of stale) report.new_messages! += await backfillThread(channel, token, conversation);
    } catch (err) {
      failure = (err as Error).message;
      report.reason = isGraphError(err, 'reconnect_required') ? 'reconnect_required' : 'failed';
      report.error = failure;
      if (isGraphError(err, 'reconnect_required')) await repo.markReconnectRequired(db, channel.account_id, failure, clock.now());
      logger.warn({ err: { message: failure } }, 'instagram sync failed');
    } finally {
      await repo.finishSync(db, channel.account_id, clock.now(), failure);
    }
    return report;
  }

  return {
    redirectUri,

    async status() {
      const channel = config.configured ? await repo.getChannel(db) : null;
      return {
        configured: config.configured,
        /** Settings the channel cannot work without (the panel names them when it is not configured). */
        missing_settings: [...(config.appId ? [] : ['INSTAGRAM_APP_ID']), ...(config.appSecret ? [] : ['INSTAGRAM_APP_SECRET'])],
        /** Settings that are not required to connect, but without which messages only arrive by the minute poll. */
        recommended_settings: [
          ...(config.verifyToken ? [] : ['INSTAGRAM_VERIFY_TOKEN']),
          ...(config.cronSecret ? [] : ['CRON_SECRET']),
        ],
        connected: channel !== null,
        account: channel ? { id: channel.account_id, username: channel.username } : null,
        token_expires_at: channel?.token_expires_at ?? null,
        reconnect_required: channel?.reconnect_required ?? false,
        reconnect_reason: channel?.reconnect_reason ?? null,
        subscribed: channel ? channel.subscribed_at !== null : false,
        send_enabled: config.sendEnabled,
        last_webhook_at: channel?.last_webhook_at ?? null,
        last_sync_at: channel?.last_sync_at ?? null,
        last_sync_error: channel?.last_sync_error ?? null,
      };
    },

    /** The authorize URL with a fresh single-use state bound to this session. */
    async connectUrl(session: SessionRef, options: { replace: boolean }): Promise<string> {
      requireConfigured();
      const state = randomBytes(32).toString('base64url');
      const now = clock.now();
      await repo.insertState(db, {
        stateHash: sha256Hex(state),
        sessionId: session.sessionId,
        userId: session.userId,
        replace: options.replace,
        expiresAt: new Date(now.getTime() + STATE_TTL_MS),
        now,
      });
      const url = new URL(config.authorizeUrl);
      const params: [string, string][] = [
        ['client_id', config.appId!],
        ['redirect_uri', redirectUri],
        ['response_type', 'code'],
        ['scope', SCOPES.join(',')],
        ['state', state],
        ['force_reauth', 'true'],
        ['enable_fb_login', ENABLE_FB_LOGIN],
      ];
      for (const [key, value] of params) url.searchParams.set(key, value);
      return url.toString();
    },

    async callback(session: SessionRef, query: Record<string, string | undefined>): Promise<CallbackOutcome> {
      if (!config.configured) return { ok: false, code: 'not_configured' };
      const state = query['state'];
      const claimed = state ? await repo.takeState(db, sha256Hex(state)) : null;
      const now = clock.now();
      if (!claimed || claimed.session_id !== session.sessionId || new Date(claimed.expires_at) <= now) {
        return { ok: false, code: 'state_invalid' };
      }
      if (query['error']) return { ok: false, code: 'denied', detail: query['error_reason'] ?? query['error'] };
      // Meta appends `#_` to the redirect; it is not part of the code.
      const code = query['code']?.replace(/#_?$/, '').trim();
      if (!code) return { ok: false, code: 'missing_code' };
      let accountId = '';
      try {
        const grant = await graph.exchangeCode({
          appId: config.appId!,
          secret: config.tokenExchangeSecret!,
          redirectUri,
          code,
        });
        if (!grant.permissions.includes(MESSAGES_SCOPE)) return { ok: false, code: 'missing_permission' };
        // Never store the 1 h token as if it were long-lived: a failed exchange fails the connection.
        const long = await graph.exchangeLongLived({ secret: config.tokenExchangeSecret!, shortToken: grant.accessToken });
        const profile = await graph.me(long.accessToken);
        accountId = profile.userId;
        const current = await repo.getChannel(db);
        if (current && current.account_id !== profile.userId && !claimed.replace_confirmed) {
          return { ok: false, code: 'other_account', detail: current.username ? `@${current.username}` : current.account_id };
        }
        let subscribedAt: Date | null = null;
        try {
          await graph.subscribe(profile.userId, long.accessToken);
          subscribedAt = now;
        } catch (err) {
          logger.warn({ err: { message: (err as Error).message } }, 'instagram webhook subscription failed; the sync retries it');
        }
        await db.rawTransaction((tx) =>
          repo.saveChannel(tx, {
            accountId: profile.userId,
            username: profile.username,
            tokenEncrypted: cipher.encrypt(long.accessToken),
            tokenExpiresAt: new Date(now.getTime() + long.expiresInSeconds * 1000),
            permissions: grant.permissions,
            subscribedAt,
            now,
          }),
        );
        return {
          ok: true,
          username: profile.username,
          accountId,
          subscribed: subscribedAt !== null,
          replaced: current !== null && current.account_id !== profile.userId,
        };
      } catch (err) {
        if (!(err instanceof GraphError)) throw err;
        logger.warn({ err: { message: err.message } }, 'instagram connection failed');
        return { ok: false, code: 'exchange_failed', detail: err.message };
      }
    },

    /**
     * Stored threads first; the Graph list is read afterwards, without delaying this answer. Before
     * an account is connected the list is empty (an empty array is valid), never an error.
     */
    async listConversations() {
      const channel = config.configured ? await repo.getChannel(db) : null;
      if (!channel) return [];
      const rows = await repo.listConversations(db, channel.account_id);
      if (!channel.reconnect_required) scheduleSync();
      return rows.map(conversationWire);
    },

    /** The stored threads of the connected account only (no sync scheduled): the panel's first paint. */
    async storedConversations() {
      const channel = config.configured ? await repo.getChannel(db) : null;
      if (!channel) return [];
      return (await repo.listConversations(db, channel.account_id)).map(conversationWire);
    },

    scheduleSync,

    /** Resolves when the background work scheduled so far is over (shutdown, tests). */
    idle: () => background,

    async listMessages(conversationId: string) {
      const channel = await connectedChannel();
      const conversation = await repo.getConversation(db, conversationId);
      if (!conversation || conversation.account_id !== channel.account_id) {
        throw new AppError('not_found', `conversation ${conversationId} not found`);
      }
      let stale = false;
      if (!channel.reconnect_required) {
        try {
          await backfillThread(channel, tokenOf(channel), conversation);
        } catch (err) {
          if (!(err instanceof GraphError)) throw err;
          if (err.kind === 'reconnect_required')
            await repo.markReconnectRequired(db, channel.account_id, err.message, clock.now());
          logger.warn({ err: { message: err.message } }, 'instagram thread read failed; answering from storage');
          stale = true;
        }
      }
      const { messages, attachments, reactions } = await repo.listMessages(db, conversation.id);
      const handle = channel.username ? `@${channel.username}` : channel.account_id;
      // The thread read may have taught us the participant's username.
      const current = (await repo.getConversation(db, conversation.id)) ?? conversation;
      const other = current.participant_username ? `@${current.participant_username}` : current.participant_id;
      return {
        stale,
        messages: messages.map((m) => ({
          ...formatMessage(m),
          author: m.direction === 'outbound' ? handle : other,
          attachments: m.is_deleted
            ? []
            : attachments
                .filter((a) => a.message_mid === m.mid)
                .map((a) => ({
                  id: a.id,
                  type: a.type,
                  mime_type: a.mime_type,
                  name: a.name,
                  size: a.size === null ? null : Number(a.size),
                })),
          reactions: reactions
            .filter((r) => r.message_mid === m.mid)
            .map((r) => ({ reactor_id: r.reactor_id, reaction: r.reaction, emoji: r.emoji })),
        })),
      };
    },

    async send(input: { conversation_id: string; text: string }) {
      // Rule 6: with the flag off nothing is checked further and nothing reaches Instagram.
      if (!config.sendEnabled) {
        throw new AppError('send_disabled', 'sending is off: the inbox is read-only until INSTAGRAM_SEND_ENABLED is on');
      }
      const text = input.text;
      const bytes = Buffer.byteLength(text, 'utf8');
      if (text.trim() === '') {
        throw new AppError('validation_failed', 'text must not be blank', {
          details: [{ path: '/text', message: 'must not be blank' }],
        });
      }
      if (bytes > MAX_TEXT_BYTES) {
        throw new AppError('validation_failed', `text must have 1 to ${MAX_TEXT_BYTES} bytes in UTF-8 (got ${bytes})`, {
          details: [{ path: '/text', message: `must be 1 to ${MAX_TEXT_BYTES} bytes in UTF-8` }],
        });
      }
      const channel = await connectedChannel();
      const conversation = await repo.getConversation(db, input.conversation_id);
      if (!conversation || conversation.account_id !== channel.account_id) {
        throw new AppError('not_found', `conversation ${input.conversation_id} not found`);
      }
      if (channel.reconnect_required)
        throw new AppError('reconnect_required', 'connect the Instagram account again before sending');
      let sent: { messageId: string };
      try {
        sent = await graph.send(channel.account_id, tokenOf(channel), conversation.participant_id, text);
      } catch (err) {
        return graphFailure(err, channel.account_id, 'send');
      }
      const now = clock.now();
      await db.rawTransaction(async (tx) => {
        await store(
          tx,
          {
            mid: sent.messageId,
            accountId: channel.account_id,
            participantId: conversation.participant_id,
            participantUsername: null,
            direction: 'outbound',
            senderId: channel.account_id,
            text,
            sentAt: now,
            isUnsupported: false,
            isExternalEcho: false,
            replyToMid: null,
            attachments: [],
            source: 'send',
          },
          now,
        );
        // The echo may have arrived first and been taken for a message written in the app.
        await repo.markSentFromApp(tx, sent.messageId);
      });
      const stored = await repo.getMessage(db, sent.messageId);
      return { ...formatMessage(stored!), author: channel.username ? `@${channel.username}` : channel.account_id };
    },

    /** A fresh media URL from the Graph, then its bytes (Range passed through); an expired URL is asked again once. */
    async openAttachment(id: string, range: string | null) {
      const channel = await connectedChannel();
      const attachment = await repo.getAttachment(db, id);
      if (!attachment || attachment.account_id !== channel.account_id)
        throw new AppError('not_found', `attachment ${id} not found`);
      if (channel.reconnect_required) throw new AppError('reconnect_required', 'connect the Instagram account again');
      const token = tokenOf(channel);
      try {
        for (let attempt = 0; attempt < 2; attempt += 1) {
          const media = await graph.messageMedia(channel.account_id, token, attachment.message_mid);
          const pick = media.find((m) => m.id !== null && m.id === attachment.id) ?? media[attachment.position];
          if (!pick?.url) throw new AppError('not_found', `attachment ${id} is no longer available on Instagram`);
          const res = await graph.fetchMedia(pick.url, range);
          if ((res.status === 403 || res.status === 410) && attempt === 0) {
            await res.body?.cancel();
            continue;
          }
          if (!(res.ok || res.status === 206 || res.status === 416) || !res.body) {
            await res.body?.cancel();
            throw new AppError('upstream_failed', `the media server answered HTTP ${res.status}`);
          }
          const headers: Record<string, string> = {
            // The sender's file, on our origin: only what cannot run opens in the browser.
            ...customerFileHeaders(res.headers.get('content-type') ?? attachment.mime_type ?? 'application/octet-stream'),
            'accept-ranges': 'bytes',
            'cache-control': 'private, no-store',
          };
          for (const name of ['content-length', 'content-range']) {
            const value = res.headers.get(name);
            if (value) headers[name] = value;
          }
          return { status: res.status, headers, body: res.body };
        }
        throw new AppError('upstream_failed', 'the media URL expired twice');
      } catch (err) {
        if (err instanceof AppError) throw err;
        return graphFailure(err, channel.account_id, 'read');
      }
    },

    /** One Meta delivery (direct webhook or hub): every event stored idempotently before the 2xx. */
    async ingest(body: unknown, source: InstagramSource) {
      const channel = config.configured ? await repo.getChannel(db) : null;
      const parsed = parseMetaDelivery(body, channel?.account_id ?? null, source);
      const now = clock.now();
      let stored = 0;
      for (const event of parsed.events) if (await applyEvent(event, now)) stored += 1;
      if (channel && parsed.ours > 0) await repo.touchWebhook(db, channel.account_id, now);
      return { stored, events: parsed.events.length, ignored: parsed.ignored };
    },

    sync: runSync,
    sendEnabled: () => config.sendEnabled,
    /** A stored message as it is now (the sales agent re-checks a deletion before answering). */
    messageState: (mid: string) => repo.getMessage(db, mid),
  };
}

function conversationWire(c: repo.ConversationRow) {
  return {
    id: c.id,
    participant_id: c.participant_id,
    participant_username: c.participant_username,
    last_message_text: c.last_message_text,
    last_message_direction: c.last_message_direction,
    last_message_at: c.last_message_at,
    read_at: c.read_at,
    updated_at: c.updated_at,
  };
}

export type ConversationWire = ReturnType<typeof conversationWire>;
export type InstagramStatus = Awaited<ReturnType<InstagramService['status']>>;
export type MessageWire = Awaited<ReturnType<InstagramService['listMessages']>>['messages'][number];

function formatMessage(m: repo.MessageRow) {
  return {
    id: m.mid,
    conversation_id: m.conversation_id,
    direction: m.direction,
    sender_id: m.sender_id,
    text: m.is_deleted ? null : m.text,
    sent_at: m.sent_at,
    is_deleted: m.is_deleted,
    is_unsupported: m.is_unsupported,
    from_instagram_app: m.is_external_echo,
    reply_to_mid: m.reply_to_mid,
  };
}
