import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { formatRelative } from '../../lib/format.ts';
import { api, errorText } from './api.ts';
import { Card } from './layout.tsx';

// What the operator's inbox tabs (Instagram, WhatsApp) share: the conversation list, asked with a
// timeout and kept fresh while the page is visible, and how it is drawn.

/** What the list shows of a conversation. */
export interface ThreadSummary {
  id: string;
  last_message_at: string | null;
  last_message_direction: string | null;
  last_message_text: string | null;
}

/** The conversations from `path` ({conversations}), aborted after `timeoutMs`. */
export async function fetchConversations<T>(path: string, timeoutMs: number): Promise<T[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    return (await api<{ conversations: T[] }>('GET', path, { signal: controller.signal })).conversations;
  } finally {
    clearTimeout(timer);
  }
}

export interface InboxListOptions<T, S> {
  /** Nothing is asked while the channel is not connected. */
  connected: boolean;
  /** The threads stored when the page was made, on screen until the first answer. */
  stored: T[];
  fetchList: (timeoutMs: number) => Promise<T[]>;
  fetchStatus: () => Promise<S>;
  onStatus: (status: S) => void;
  /** Asks the open conversation again (each round, after the list). */
  refreshOpen: () => Promise<void>;
  listTimeoutMs: number;
  pollMs: number;
  /** Who was slow, for «… tardó más de N segundos en responder». */
  slowParty: string;
}

/**
 * The conversation list of an inbox tab. The first list replaces the stored threads: it is
 * aborted after the timeout, and an empty first answer is asked once more. Once it settles, while
 * the page is visible, the list, the channel's status and the open conversation are asked again
 * every few seconds, one round at a time (a slow answer never piles up requests); a hidden tab
 * asks nothing and asks at once when it is shown again.
 */
export function useInboxList<T, S>(options: InboxListOptions<T, S>) {
  const { connected, listTimeoutMs, pollMs } = options;
  const [threads, setThreads] = useState<T[]>(options.stored);
  const [listState, setListState] = useState<'loading' | 'ready' | 'failed'>('loading');
  const [listProblem, setListProblem] = useState<string | null>(null);
  const [firstDone, setFirstDone] = useState(false);

  useEffect(() => {
    if (!connected) return;
    let cancelled = false;
    (async () => {
      try {
        let list = await options.fetchList(listTimeoutMs);
        if (list.length === 0) list = await options.fetchList(listTimeoutMs);
        if (cancelled) return;
        setThreads(list);
        setListState('ready');
      } catch (err) {
        if (cancelled) return;
        setListState('failed');
        setListProblem(
          (err as Error).name === 'AbortError'
            ? `${options.slowParty} tardó más de ${Math.round(listTimeoutMs / 1000)} segundos en responder.`
            : errorText(err),
        );
      } finally {
        if (!cancelled) setFirstDone(true);
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [connected]);

  useEffect(() => {
    if (!connected || !firstDone) return;
    let busy = false;
    const round = async () => {
      if (busy || document.visibilityState !== 'visible') return;
      busy = true;
      try {
        const [list, status] = await Promise.all([options.fetchList(listTimeoutMs), options.fetchStatus()]);
        setThreads(list);
        options.onStatus(status);
        setListState('ready');
        setListProblem(null);
      } catch {
        // The next round tries again; what is on screen stays.
      }
      try {
        await options.refreshOpen();
      } finally {
        busy = false;
      }
    };
    const timer = setInterval(() => void round(), pollMs);
    const shown = () => {
      if (document.visibilityState === 'visible') void round();
    };
    document.addEventListener('visibilitychange', shown);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', shown);
    };
  }, [connected, firstDone]);

  return { threads, listState, listProblem };
}

/** The «Conversaciones» card: loading, a problem, the empty state, and a button per thread. */
export function ThreadList<T extends ThreadSummary>({
  threads,
  listState,
  listProblem,
  openId,
  who,
  noText,
  empty,
  onOpen,
}: {
  threads: T[];
  listState: 'loading' | 'ready' | 'failed';
  listProblem: string | null;
  openId: string | null;
  who: (thread: T) => string;
  /** The preview of a last message without text. */
  noText: string;
  empty: ComponentChildren;
  onOpen: (id: string) => void;
}) {
  return (
    <Card title="Conversaciones" id="threads">
      {listState === 'loading' ? (
        <p class="muted" data-list-loading>
          Buscando conversaciones…
        </p>
      ) : null}
      {listProblem ? (
        <p class="notice notice-error" data-list-problem role="status">
          {listProblem} {threads.length > 0 ? 'Mostramos las conversaciones guardadas.' : ''}
        </p>
      ) : null}
      {threads.length === 0 && listState !== 'loading' ? <p data-empty-state>{empty}</p> : null}
      <ul class="thread-list">
        {threads.map((t) => (
          <li key={t.id}>
            <button
              type="button"
              class={`thread ${t.id === openId ? 'active' : ''}`}
              data-thread={t.id}
              onClick={() => onOpen(t.id)}
            >
              <span class="thread-who">{who(t)}</span>
              <span class="thread-when muted">{t.last_message_at ? formatRelative(t.last_message_at) : ''}</span>
              <span class="thread-preview muted" data-preview>
                {t.last_message_direction === 'outbound' ? <strong>Vos: </strong> : null}
                {t.last_message_text || noText}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </Card>
  );
}
