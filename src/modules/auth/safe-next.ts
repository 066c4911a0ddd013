const BASE = 'http://mostrador.invalid';

/**
 * A path on this site to return to after login, or '/' when `next` is missing or points
 * elsewhere (absolute URLs, `//host`, backslashes, control characters, other schemes).
 */
export function safeNextPath(next: unknown): string {
  if (typeof next !== 'string' || next.length === 0 || next.length > 2048) return '/';
  if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\') || hasControlCharacter(next)) return '/';
  try {
    const url = new URL(next, BASE);
    if (url.origin !== BASE) return '/';
    const path = `${url.pathname}${url.search}${url.hash}`;
    // Back to the login page would only loop.
    return path.startsWith('//') || url.pathname === '/login' ? '/' : path;
  } catch {
    return '/';
  }
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
