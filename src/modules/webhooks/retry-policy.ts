/**
 * When a failed delivery is tried again (design §5): exponential, starting at about 10 s and
 * spanning about three days in total, each delay spread ±20 % so endpoints coming back are not hit
 * by every delivery at once. Eleven attempts: the first, then one after each delay.
 */
export const RETRY_DELAYS_SECONDS = [10, 60, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
export const JITTER = 0.2;
/** A Retry-After longer than the schedule is honoured up to this; shorter ones never speed it up. */
export const MAX_RETRY_AFTER_SECONDS = 3600;
/** An endpoint failing without a single success for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600 * 1000;
export const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * Milliseconds to wait after the `attempt`-th failed attempt of the current round, or null when
 * the schedule is exhausted. `random` is in [0, 1) (Math.random in production).
 */
export function retryDelayMs(attempt: number, retryAfterSeconds: number | null, random: number): number | null {
  const base = RETRY_DELAYS_SECONDS[attempt - 1];
  if (base === undefined) return null;
  const jittered = base * (1 - JITTER + 2 * JITTER * random);
  const asked = retryAfterSeconds === null ? 0 : Math.min(retryAfterSeconds, MAX_RETRY_AFTER_SECONDS);
  return Math.round(Math.max(jittered, asked) * 1000);
}

/** A Retry-After header in seconds (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text);
  const date = Date.parse(text);
  if (Number.isNaN(date) || !/[a-z]/i.test(text)) return null;
  return Math.max(0, Math.ceil((date - now.getTime()) / 1000));
}
