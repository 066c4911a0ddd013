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
/** A quote is about 150 bytes: an answer past this is not one, and is not read into memory. */
export const MAX_UPSTREAM_BYTES = 64 * 1024;
/** What exchange_rates.rate (numeric(14, 4), > 0) can hold. */
const MIN_RATE = 0.0001;
const MAX_RATE = 9_999_999_999.9999;

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
    body = JSON.parse(await readLimited(res, MAX_UPSTREAM_BYTES));
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

/** The body as text, refused (and no longer read) once it passes `limit` bytes. */
async function readLimited(res: Response, limit: number): Promise<string> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new UpstreamError(`exchange upstream answer is larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * `fechaActualizacion` is ISO 8601 in UTC; one without a zone is read as Argentina's time (UTC−3, no
 * daylight saving since 2009), the source's own, not as the server's zone.
 */
function quoteTime(stamp: string): Date {
  const zoneless = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(stamp.trim());
  return new Date(zoneless ? `${stamp.trim()}-03:00` : stamp);
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
  // Zero or less is the guard's to refuse (and to log); what no stored rate can hold is not a quote.
  if (rate > 0 && (rate < MIN_RATE || rate > MAX_RATE))
    throw new UpstreamError(`exchange upstream "venta" is out of range: ${rate}`);
  const buy = toNumber(quote['compra']);
  const stamp = quote['fechaActualizacion'];
  const updatedAt = typeof stamp === 'string' ? quoteTime(stamp) : null;
  if (!updatedAt || Number.isNaN(updatedAt.getTime())) {
    throw new UpstreamError(`exchange upstream "fechaActualizacion" is not a date: ${JSON.stringify(stamp)}`);
  }
  const kind = typeof quote['casa'] === 'string' && quote['casa'] !== '' ? quote['casa'] : 'oficial';
  const usableBuy = buy !== null && Number.isFinite(buy) && buy >= MIN_RATE && buy <= MAX_RATE;
  return { rate, buy: usableBuy ? buy : null, kind, updatedAt };
}
