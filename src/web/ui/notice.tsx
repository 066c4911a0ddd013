import { useCallback, useState } from 'preact/hooks';

export type NoticeKind = 'info' | 'ok' | 'error';
export interface NoticeState {
  kind: NoticeKind;
  text: string;
  /** Changes with every notice, so the same text said twice is announced again. */
  seq: number;
}

/** One notice slot: a new notice replaces the previous one instead of piling up. */
export function useNotice(): [NoticeState | null, (kind: NoticeKind, text: string) => void, () => void] {
  const [notice, setNotice] = useState<NoticeState | null>(null);
  const show = useCallback((kind: NoticeKind, text: string) => setNotice((n) => ({ kind, text, seq: (n?.seq ?? 0) + 1 })), []);
  const clear = useCallback(() => setNotice(null), []);
  return [notice, show, clear];
}

export function Notice({ notice, id }: { notice: NoticeState | null; id?: string }) {
  if (!notice) return null;
  return (
    <p id={id} key={notice.seq} class={`notice notice-${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
      {notice.text}
    </p>
  );
}
