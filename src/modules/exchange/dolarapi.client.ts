/** One quote as DolarAPI serves it (`GET /v1/dolares/{casa}`), reduced to what we keep. */
export interface UpstreamQuote {
  /** `venta`: the sell rate, what a shop charges with. */
  rate: number;
  /** `compra`, when the upstream gives one. */
  buy: number | null;
  /** `casa`, e.g. "oficial" (the Banco Nación rate). */
  kind: string;
  /** `fechaActualizacion`: the source's own time of the quote. */
  updatedAt: Date;
}

export class UpstreamError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UpstreamError';
  }
}

export const UPSTREAM_TIMEOUT_MS = 5000;

export interface FetchQuoteOptions {
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
}

/**
 * Reads one DolarAPI-compatible quote: `{moneda, casa, nombre, compra, venta, fechaActualizacion}`.
 * The timeout covers the whole exchange, headers and body. A malformed answer is an UpstreamError;
 * whether the value is plausible is for the caller to judge.
 */
export async function fetchDolarApiQuote(url: string, options: FetchQuoteOptions = {}): Promise<UpstreamQuote> {
  const { timeoutMs = UPSTREAM_TIMEOUT_MS, fetchImpl = fetch } = options;
  let body: unknown;
  try {
    const res = await fetchImpl(url, {
      headers: { accept: 'application/json', 'user-agent': 'Mostrador/1.0 (+exchange-rate)' },
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) throw new UpstreamError(`exchange upstream answered HTTP ${res.status}`);
    body = await res.json();
  } catch (err) {
    if (err instanceof UpstreamError) throw err;
    // undici reports network failures as "fetch failed" with the useful part in its cause.
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    const reason =
      (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (cause ?? (err as Error).message);
    throw new UpstreamError(`exchange upstream failed: ${reason}`, { cause: err });
  }
  return parseQuote(body);
}

function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  return null;
}

export function parseQuote(body: unknown): UpstreamQuote {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new UpstreamError('exchange upstream answered something that is not one quote object');
  }
  const quote = body as Record<string, unknown>;
  const rate = toNumber(quote['venta']);
  if (rate === null || !Number.isFinite(rate))
    throw new UpstreamError(`exchange upstream "venta" is not a number: ${JSON.stringify(quote['venta'])}`);
  const buy = toNumber(quote['compra']);
  const stamp = quote['fechaActualizacion'];
  const updatedAt = typeof stamp === 'string' ? new Date(stamp) : null;
  if (!updatedAt || Number.isNaN(updatedAt.getTime())) {
    throw new UpstreamError(`exchange upstream "fechaActualizacion" is not a date: ${JSON.stringify(stamp)}`);
  }
  const kind = typeof quote['casa'] === 'string' && quote['casa'] !== '' ? quote['casa'] : 'oficial';
  return { rate, buy: buy !== null && Number.isFinite(buy) && buy > 0 ? buy : null, kind, updatedAt };
}
