import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../src/http/app.types.ts';
import type { Clock } from '../src/lib/time.ts';

/** A clock tests move by hand (sessions expire, rate windows reset). */
export function manualClock(start = new Date('2026-03-02T12:00:00Z')) {
  let current = start.getTime();
  const clock: Clock & { advance(ms: number): void; set(date: Date): void } = {
    now: () => new Date(current),
    advance(ms) {
      current += ms;
    },
    set(date) {
      current = date.getTime();
    },
  };
  return clock;
}

export const SAME_ORIGIN = { origin: 'http://localhost:3000' };

/** The `name=value` of the session cookie a response set (empty string when it cleared it). */
export function sessionCookieFrom(res: LightMyRequestResponse): string | null {
  const raw = res.headers['set-cookie'];
  const list = Array.isArray(raw) ? raw : raw ? [raw] : [];
  const line = list.find((c) => /^(__Host-)?mostrador_session=/.test(c));
  return line ? line.split(';')[0]! : null;
}

/** Logs in through the real endpoint; returns the cookie header value to send back. */
export async function login(app: App, email: string, password: string, headers: Record<string, string> = {}) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { ...SAME_ORIGIN, ...headers },
    payload: { email, password },
  });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  const cookie = sessionCookieFrom(res)!;
  return { cookie, token: cookie.split('=')[1]!, res };
}
