import { useEffect, useRef } from 'preact/hooks';
import { api, errorText } from './api.ts';

/**
 * GETs `path` once it has stayed the same for `delayMs` (a search box being typed in), aborting
 * the request of the path before; a new `reload` fetches the same path again. The answer goes to
 * `onAnswer`, a failure's text to `onError` (an abort is not one).
 */
export function useDebouncedGet<T>(
  path: string,
  reload: number,
  onAnswer: (answer: T) => void,
  onError: (text: string) => void,
  delayMs = 200,
) {
  const handlers = useRef({ onAnswer, onError });
  handlers.current = { onAnswer, onError };
  useEffect(() => {
    const controller = new AbortController();
    const timer = setTimeout(async () => {
      try {
        handlers.current.onAnswer(await api<T>('GET', path, { signal: controller.signal }));
      } catch (err) {
        if ((err as Error).name !== 'AbortError') handlers.current.onError(errorText(err));
      }
    }, delayMs);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [path, reload, delayMs]);
}
