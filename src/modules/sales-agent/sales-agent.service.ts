import { randomInt } from 'node:crypto';
import type { SalesAgentConfig } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import type { Clock } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import type { PriceList } from '../docs/price-list.ts';
import type { MessageWrite, Q } from '../instagram/instagram.repo.ts';
import type { InstagramService } from '../instagram/instagram.service.ts';
import { sameWaIdKey } from '../whatsapp/phone.ts';
import type { WhatsappNewMessageHook, WhatsappService } from '../whatsapp/whatsapp.service.ts';
import type { Brain, BrainInput, HistoryItem } from './brain.ts';
import { queryOn } from './conn-query.ts';
import { applyGuardrails, type GuardedAnswer } from './guardrails.ts';
import * as repo from './sales-agent.repo.ts';

/** Reply delay, first message (contract limits): 60 to 300 seconds after receipt. */
export const FIRST_DELAY_MS = { min: 60_000, max: 300_000 } as const;
/** Reply delay, follow-up in an active thread: 15 to 60 seconds. */
export const ACTIVE_DELAY_MS = { min: 15_000, max: 60_000 } as const;
/** A thread is active when we (agent or operator) wrote to the person in this window before the message. */
export const ACTIVE_WINDOW_MS = 30 * 60_000;
/** A message sent longer ago than this when it is first stored is history (a backfill), never claimed. */
export const FRESH_MS = 10 * 60_000;

/**
 * A due reply not sent this long after its send_after is never sent: the workers were down or
 * behind, and an answer that late breaks the contract's delays (at most 300 s) and lands in a
 * conversation that has moved on.
 */
export const LATE_MS = 10 * 60_000;

/** When a message was sent, or now when its timestamp is ahead of our clock: never newer than its arrival. */
const sentOrArrived = (sentAt: Date, now: Date): Date => (sentAt.getTime() > now.getTime() ? now : sentAt);
/** How long one process holds a turn while deciding and sending. */
const LEASE_MS = 2 * 60_000;
/** Turns handled per minute run at most (each may wait for the model and for Instagram). */
const PER_RUN = 50;

export interface SalesAgentDeps {
  db: Database;
  config: SalesAgentConfig;
  clock: Clock;
  logger: Logger;
  instagram: InstagramService;
  whatsapp: WhatsappService;
  brain: Brain;
  prices: PriceList;
  /** Uniform integer in [min, max]; tests may pin it. */
  random?: (min: number, max: number) => number;
}

export interface TickReport {
  ran: boolean;
  reason?: 'disabled';
  taken: number;
  sent: number;
  held: number;
  handoff: number;
  cancelled: number;
  superseded: number;
  failed: number;
  /** Waiting turns whose reply was decided ahead, for the log. */
  planned?: number;
}

export type SalesAgentService = ReturnType<typeof createSalesAgentService>;

export function createSalesAgentService(deps: SalesAgentDeps) {
  const { db, config, clock, logger, instagram, whatsapp, brain, prices } = deps;
  const random = deps.random ?? ((min: number, max: number) => randomInt(min, max + 1));
  const senders = new Set(config.senderIds);
  // Compared by sameWaIdKey: an Argentine mobile may be written 549… or 54… (Meta sends 549…).
  const whatsappSenders = new Set(config.whatsappSenderIds.map(sameWaIdKey));

  /** The delay of a claimed message: short when we wrote to the person in the last half hour. */
  async function schedule(q: Q, channel: repo.Channel, conversationId: string, sentAt: Date, now: Date) {
    const active = await repo.ourMessageSince(q, channel, conversationId, new Date(sentAt.getTime() - ACTIVE_WINDOW_MS));
    const window = active ? ACTIVE_DELAY_MS : FIRST_DELAY_MS;
    return {
      threadState: active ? ('active' as const) : ('first' as const),
      sendAfter: new Date(now.getTime() + random(window.min, window.max)),
    };
  }

  /**
   * A person of the team wrote in the conversation before the message and after the agent's last
   * part there (or where it never had one): the conversation is theirs, tagged like a handoff (the
   * operator gives it back from the agent's page), and the message is not claimed. The reason, or null.
   */
  async function teamTook(q: Q, channel: repo.Channel, conversationId: string, mid: string, now: Date) {
    const reason = await repo.teamWrote(q, channel, conversationId, mid, now);
    if (reason) await repo.tagHandoff(q, channel, conversationId, mid, reason, now);
    return reason;
  }

  /**
   * The rules of a claim, the same on both channels: the designated account and senders, fresh
   * messages only (history brought by a backfill or a reconnect is not new traffic: nothing for
   * anyone else, a skipped record for the designated sender so the operator sees why no answer went
   * out), text only, and no claim while a handoff is open or the team took the conversation.
   */
  async function claimTurn(
    q: Q,
    m: {
      channel: repo.Channel;
      mid: string;
      conversationId: string;
      accountId: string;
      senderId: string;
      text: string | null;
      source: string;
      sentAt: Date;
      ourAccount: boolean;
      designatedSender: boolean;
      unsupported: boolean;
    },
    now: Date,
  ): Promise<void> {
    const sentAt = sentOrArrived(m.sentAt, now);
    const fresh = now.getTime() - sentAt.getTime() <= FRESH_MS;
    if (!fresh && !(m.ourAccount && m.designatedSender)) return;
    let reason: string | null = null;
    if (!m.ourAccount) reason = 'other_account';
    else if (!m.designatedSender) reason = 'other_sender';
    else if (!fresh) reason = 'not_new';
    else if (m.unsupported) reason = 'unsupported';
    else if (!m.text?.trim()) reason = 'no_text';
    else if (await repo.handoffOpen(q, m.conversationId)) reason = 'handoff_open';
    else reason = await teamTook(q, m.channel, m.conversationId, m.mid, now);
    const planned = reason === null ? await schedule(q, m.channel, m.conversationId, sentAt, now) : null;
    await repo.insertTurn(q, {
      mid: m.mid,
      channel: m.channel,
      conversationId: m.conversationId,
      accountId: m.accountId,
      senderId: m.senderId,
      text: m.text,
      source: m.source,
      status: reason === null ? 'pending' : 'skipped',
      reason,
      threadState: planned?.threadState ?? null,
      receivedAt: now,
      sendAfter: planned?.sendAfter ?? null,
      now,
    });
  }

  /**
   * The WhatsApp claim (issue 31), run in the webhook's insert transaction: the rules of claimTurn
   * and the channel's own switch. WhatsApp has no other path that stores an inbound message, and
   * the key is the wamid.
   */
  const claimWhatsapp: WhatsappNewMessageHook = async (tx, m, channel, now) => {
    if (!config.enabled || !channel.agentEnabled || config.whatsappNumberId === null) return;
    await claimTurn(
      queryOn(tx),
      {
        channel: 'whatsapp',
        mid: m.wamid,
        conversationId: m.conversationId,
        accountId: channel.phoneNumberId,
        senderId: m.waId,
        text: m.text,
        source: 'webhook',
        sentAt: m.sentAt,
        ourAccount: channel.phoneNumberId === config.whatsappNumberId,
        designatedSender: whatsappSenders.has(sameWaIdKey(m.waId)),
        unsupported: false,
      },
      now,
    );
  };

  /** The channel's own switch (WhatsApp's is on its channel record; Instagram has only the global one). */
  async function channelEnabled(channel: repo.Channel): Promise<boolean> {
    return channel === 'instagram' ? true : (await whatsapp.status()).agent_enabled;
  }
  const sendEnabled = (channel: repo.Channel) => (channel === 'instagram' ? instagram.sendEnabled() : whatsapp.sendEnabled());
  async function sendReply(turn: repo.TurnRow, text: string): Promise<string | null> {
    if (turn.channel === 'whatsapp') {
      return (await whatsapp.sendText({ conversation_id: turn.conversation_id, text }))?.wamid ?? null;
    }
    return (await instagram.send({ conversation_id: turn.conversation_id, text })).id;
  }

  /**
   * The Instagram claim, run by storeMessage in the transaction that inserted the row, whatever path
   * it was (webhook, hub, graph sync, minute poll, thread read). It never sends and never asks the brain.
   */
  async function claim(q: Q, m: MessageWrite & { conversationId: string }, now: Date): Promise<void> {
    if (!config.enabled || m.direction !== 'inbound') return;
    await claimTurn(
      q,
      {
        channel: 'instagram',
        mid: m.mid,
        conversationId: m.conversationId,
        accountId: m.accountId,
        senderId: m.senderId,
        text: m.text,
        source: m.source,
        sentAt: m.sentAt,
        ourAccount: m.accountId === config.accountId,
        designatedSender: senders.has(m.senderId),
        unsupported: Boolean(m.isUnsupported),
      },
      now,
    );
  }

  /** The brain, then the guardrails: what any caller (the minute job, the CLI) gets. */
  async function decide(input: BrainInput): Promise<GuardedAnswer & { brain: string; raw: unknown; ms: number }> {
    const started = performance.now();
    let raw: unknown;
    let guarded: GuardedAnswer;
    try {
      const answer = await brain.decide(input);
      raw = answer;
      guarded = applyGuardrails(answer, input.text, prices);
    } catch (err) {
      raw = { error: (err as Error).message };
      guarded = { decision: 'handoff', reply: null, handoff_reason: 'brain_error', confidence: 0, guardrails: [] };
    }
    return { ...guarded, brain: brain.name, raw, ms: Math.round(performance.now() - started) };
  }

  function brainInput(thread: repo.ThreadMessage[], turn: repo.TurnRow): BrainInput {
    const upTo = thread.findIndex((m) => m.mid === turn.inbound_mid);
    const before = upTo >= 0 ? thread.slice(0, upTo + 1) : thread;
    // What the person wrote since our last message (several messages in a row are answered once).
    let start = before.length;
    while (start > 0 && before[start - 1]!.direction === 'inbound') start -= 1;
    const pending = before.slice(start).filter((m) => !m.is_deleted && m.text);
    const history: HistoryItem[] = before
      .slice(0, start)
      .filter((m) => !m.is_deleted && m.text)
      .slice(-20)
      .map((m) => ({ from: m.direction === 'inbound' ? 'customer' : 'us', text: m.text! }));
    return { text: pending.map((m) => m.text).join('\n') || turn.input_text || '', history };
  }

  /** The decision stored while the turn waited, if it was made on the same input. */
  function plannedAnswer(turn: repo.TurnRow, inputText: string) {
    if (!turn.decided_at || !turn.decision || turn.input_text !== inputText || !turn.brain) return null;
    let raw: unknown = turn.brain_output;
    try {
      raw = JSON.parse(turn.brain_output ?? 'null');
    } catch {
      // Kept as text: it was cut at 4,000 characters.
    }
    return {
      decision: turn.decision,
      reply: turn.reply,
      handoff_reason: turn.handoff_reason,
      confidence: turn.confidence === null ? 0 : Number(turn.confidence),
      guardrails: turn.guardrails,
      brain: turn.brain,
      raw,
      ms: turn.brain_ms ?? 0,
    };
  }

  /**
   * Plans the reply of turns still waiting for their delay, so the shadow log shows what would be
   * sent before it is. Nothing is sent or tagged here; the due run re-checks everything.
   */
  async function plan(limit: number): Promise<number> {
    let planned = 0;
    for (const turn of await repo.unplanned(db, limit)) {
      const input = brainInput(await repo.threadUpTo(db, turn.channel, turn.conversation_id), turn);
      const decided = await decide(input);
      const stored = await repo.planTurn(db, turn.inbound_mid, {
        inputText: input.text,
        decision: decided.decision,
        reply: decided.reply,
        handoffReason: decided.handoff_reason,
        confidence: decided.confidence,
        brain: decided.brain,
        brainOutput: JSON.stringify(decided.raw).slice(0, 4000),
        guardrails: decided.guardrails,
        brainMs: decided.ms,
        decidedAt: clock.now(),
      });
      if (stored) planned += 1;
    }
    return planned;
  }

  async function handle(turn: repo.TurnRow, report: TickReport): Promise<void> {
    const now = () => clock.now();
    const stop = async (status: 'cancelled' | 'superseded', reason: string) => {
      await repo.finishTurn(db, turn.inbound_mid, { status, reason, now: now() });
      report[status] += 1;
    };
    /**
     * A person of the team wrote (after the message, or before it: humanReason): the conversation
     * is theirs now. Tagged like a handoff, so the agent does not cut in 15 seconds after the
     * person's next message while the operator is still typing; the operator gives it back from
     * the agent's page.
     */
    const humanTookOver = async (record: Partial<Parameters<typeof repo.finishTurn>[2]>, reason: repo.TeamReason) => {
      const at = now();
      await db.rawTransaction(async (tx) => {
        await repo.tagHandoff(tx, turn.channel, turn.conversation_id, turn.inbound_mid, reason, at);
        await repo.finishTurn(tx, turn.inbound_mid, { ...record, status: 'cancelled', reason, now: at });
      });
      report.cancelled += 1;
    };
    /** A person of the team answered after the message, or wrote before it after the agent's last part there (teamWrote). */
    const humanReason = async (): Promise<repo.TeamReason | null> => {
      if (await repo.humanReplied(db, turn)) return 'human_replied';
      return repo.teamWrote(db, turn.channel, turn.conversation_id, turn.inbound_mid, new Date(turn.received_at));
    };
    const dueAt = turn.send_after ? new Date(turn.send_after).getTime() : now().getTime();
    if (now().getTime() - dueAt > LATE_MS) return stop('cancelled', 'too_late');
    if (!(await repo.messageLive(db, turn))) return stop('cancelled', 'message_deleted');
    if (await repo.handoffOpen(db, turn.conversation_id)) return stop('cancelled', 'handoff_open');
    const took = await humanReason();
    if (took) return humanTookOver({}, took);
    const newer = await repo.newerClaimed(db, turn);
    if (newer) return stop('superseded', `newer message ${newer}`);

    const thread = await repo.threadUpTo(db, turn.channel, turn.conversation_id);
    const input = brainInput(thread, turn);
    // The reply planned while the turn waited (shown in the log) stands if the input is the same.
    const decided = plannedAnswer(turn, input.text) ?? (await decide(input));
    const decidedAt = turn.decided_at && plannedAnswer(turn, input.text) ? new Date(turn.decided_at) : now();
    const record = {
      inputText: input.text,
      decision: decided.decision,
      reply: decided.reply,
      handoffReason: decided.handoff_reason,
      confidence: decided.confidence,
      brain: decided.brain,
      brainOutput: JSON.stringify(decided.raw).slice(0, 4000),
      guardrails: decided.guardrails,
      brainMs: decided.ms,
      decidedAt,
    };
    if (decided.decision === 'handoff') {
      await db.rawTransaction(async (tx) => {
        await repo.tagHandoff(
          tx,
          turn.channel,
          turn.conversation_id,
          turn.inbound_mid,
          decided.handoff_reason ?? 'low_confidence',
          decidedAt,
        );
        await repo.finishTurn(tx, turn.inbound_mid, { ...record, status: 'handoff', now: decidedAt });
      });
      report.handoff += 1;
      return;
    }
    // Re-checked after the brain (which may take seconds): the flags, a person answering meanwhile,
    // a newer message.
    if (!config.enabled || !(await channelEnabled(turn.channel))) {
      await repo.finishTurn(db, turn.inbound_mid, { ...record, status: 'cancelled', reason: 'agent_disabled', now: now() });
      report.cancelled += 1;
      return;
    }
    const tookMeanwhile = await humanReason();
    if (tookMeanwhile) return humanTookOver(record, tookMeanwhile);
    const newer2 = await repo.newerClaimed(db, turn);
    if (newer2) {
      await repo.finishTurn(db, turn.inbound_mid, {
        ...record,
        status: 'superseded',
        reason: `newer message ${newer2}`,
        now: now(),
      });
      report.superseded += 1;
      return;
    }
    if (!sendEnabled(turn.channel)) {
      await repo.finishTurn(db, turn.inbound_mid, { ...record, status: 'held', reason: 'send_disabled', now: now() });
      report.held += 1;
      return;
    }
    // A WhatsApp token Meta refused: held (not failed) until the operator saves the channel again.
    if (turn.channel === 'whatsapp' && (await whatsapp.status()).reconnect_required) {
      await repo.finishTurn(db, turn.inbound_mid, { ...record, status: 'held', reason: 'reconnect_required', now: now() });
      report.held += 1;
      return;
    }
    try {
      const sentMid = await sendReply(turn, decided.reply!);
      await repo.finishTurn(db, turn.inbound_mid, { ...record, status: 'sent', sentMid, sentAt: now(), now: now() });
      report.sent += 1;
    } catch (err) {
      const reason = err instanceof AppError ? `${err.code}: ${err.message}` : (err as Error).message;
      await repo.finishTurn(db, turn.inbound_mid, { ...record, status: 'failed', reason: reason.slice(0, 500), now: now() });
      report.failed += 1;
      logger.warn({ err: { message: reason }, mid: turn.inbound_mid }, 'sales agent reply failed');
    }
  }

  return {
    claim,
    claimWhatsapp,
    decide,

    /** The minute job: decides and sends the due replies. The only place a reply is sent from. */
    async tick(): Promise<TickReport> {
      const report: TickReport = { ran: true, taken: 0, sent: 0, held: 0, handoff: 0, cancelled: 0, superseded: 0, failed: 0 };
      const now = clock.now();
      await repo.failAbandoned(db, now);
      if (!config.enabled) {
        report.cancelled = await repo.cancelPending(db, 'agent_disabled', now);
        return { ...report, ran: false, reason: 'disabled' };
      }
      for (let i = 0; i < PER_RUN; i += 1) {
        const turn = await repo.takeDue(db, clock.now(), LEASE_MS);
        if (!turn) break;
        report.taken += 1;
        try {
          await handle(turn, report);
        } catch (err) {
          await repo.finishTurn(db, turn.inbound_mid, {
            status: 'failed',
            reason: (err as Error).message.slice(0, 500),
            now: clock.now(),
          });
          report.failed += 1;
          logger.error({ err, mid: turn.inbound_mid }, 'sales agent turn failed');
        }
      }
      try {
        report.planned = await plan(PER_RUN);
      } catch (err) {
        logger.warn({ err }, 'sales agent could not plan the waiting replies');
      }
      return report;
    },

    async list(filters: repo.TurnFilters) {
      const rows = await repo.listTurns(db, filters);
      return rows.map((t) => ({
        inbound_mid: t.inbound_mid,
        channel: t.channel,
        conversation_id: t.conversation_id,
        sender_id: t.sender_id,
        participant_username: t.participant_username,
        profile_name: t.profile_name,
        /** As the inbox names the person: @username (or «Usuario id» until known), profile name and number on WhatsApp. */
        contact_name:
          t.channel === 'whatsapp'
            ? t.profile_name
              ? `${t.profile_name} (+${t.sender_id})`
              : `+${t.sender_id}`
            : t.participant_username
              ? `@${t.participant_username}`
              : `Usuario ${t.sender_id}`,
        /** The thread in its inbox tab. */
        thread_url: `/superadmin/${t.channel}?thread=${encodeURIComponent(t.conversation_id)}`,
        input_text: t.input_text,
        claimed_by: t.claimed_by,
        status: t.status,
        reason: t.reason,
        thread_state: t.thread_state,
        received_at: t.received_at,
        send_after: t.send_after,
        decision: t.decision,
        reply: t.reply,
        handoff_reason: t.handoff_reason,
        confidence: t.confidence === null ? null : Number(t.confidence),
        brain: t.brain,
        brain_output: t.brain_output,
        guardrails: t.guardrails,
        brain_ms: t.brain_ms,
        decided_at: t.decided_at,
        sent_mid: t.sent_mid,
        sent_at: t.sent_at,
        handoff_open: t.handoff_open,
      }));
    },

    async summary() {
      return {
        enabled: config.enabled,
        send_enabled: instagram.sendEnabled(),
        account_id: config.accountId,
        sender_ids: config.senderIds,
        whatsapp: await (async () => {
          const status = await whatsapp.status();
          return {
            enabled: config.enabled && status.agent_enabled && config.whatsappNumberId !== null,
            channel_switch: status.agent_enabled,
            send_enabled: whatsapp.sendEnabled(),
            number_id: config.whatsappNumberId,
            sender_ids: config.whatsappSenderIds,
          };
        })(),
        brain: brain.name,
        counts: await repo.countByStatus(db),
        delays: {
          first_seconds: [FIRST_DELAY_MS.min / 1000, FIRST_DELAY_MS.max / 1000],
          active_seconds: [ACTIVE_DELAY_MS.min / 1000, ACTIVE_DELAY_MS.max / 1000],
          active_window_minutes: ACTIVE_WINDOW_MS / 60_000,
        },
      };
    },

    async resume(conversationId: string) {
      const cleared = await repo.resumeHandoff(db, conversationId, clock.now());
      if (!cleared) throw new AppError('not_found', `conversation ${conversationId} has no open handoff`);
      return { conversation_id: conversationId, handoff_open: false };
    },
  };
}
