import type { Database } from '../../db/client.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { AppError } from '../../lib/errors.ts';
import type { Clock } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import { fetchDolarApiQuote, type UpstreamQuote } from './dolarapi.client.ts';
import { judgeReading, type Reading, type Verdict } from './exchange.guard.ts';
import { type ExchangeRateRow, findLatestReading, findServedRate, insertReading, lockHistory } from './exchange.repo.ts';

export const EXCHANGE_REFRESH_JOB = 'exchange.refresh';
export const EXCHANGE_REFRESH_SCHEDULE = '*/15 * * * *';

export interface ExchangeRateBody {
  rate: number;
  source: string;
  updated_at: string;
}

export interface ExchangeServiceDeps {
  db: Database;
  jobs: JobQueue;
  clock: Clock;
  logger: Logger;
  sourceUrl: string;
  fixedRate: string | null;
}

export type ExchangeService = ReturnType<typeof createExchangeService>;

const toReading = (row: ExchangeRateRow): Reading => ({
  source: row.source,
  rate: Number(row.rate),
  sourceUpdatedAt: row.sourceUpdatedAt,
});

/** `dolarapi.com:oficial`: where the rate came from, as the endpoint reports it. */
export function sourceLabel(url: string, kind: string): string {
  return `${new URL(url).host}:${kind}`;
}

/** How often an unreachable exchange-rate source is warned about (in between, debug lines only). */
export const UNREACHABLE_WARNING_EVERY_MS = 60 * 60 * 1000;
/** Workers starting within one slot of this length share one start-up refresh. */
const STARTUP_REFRESH_SLOT_SECONDS = 300;

export function createExchangeService(deps: ExchangeServiceDeps) {
  const { db, jobs, clock, logger, sourceUrl, fixedRate } = deps;
  const fixedSince = clock.now();

  /** The rate to serve, from the store only (never waits on the upstream). */
  async function currentRate(): Promise<ExchangeRateBody> {
    if (fixedRate !== null) return { rate: Number(fixedRate), source: 'fixed', updated_at: fixedSince.toISOString() };
    const row = await findServedRate(db.orm);
    if (!row) {
      throw new AppError('rate_unavailable', 'no exchange rate is known yet; the first refresh has not succeeded', {
        headers: { 'retry-after': '60' },
      });
    }
    return { rate: Number(row.rate), source: row.source, updated_at: row.sourceUpdatedAt.toISOString() };
  }

  /** Stores one reading as the guard decides, under a lock so concurrent refreshes see each other. */
  async function record(quote: UpstreamQuote): Promise<Verdict> {
    const reading: Reading = { source: sourceLabel(sourceUrl, quote.kind), rate: quote.rate, sourceUpdatedAt: quote.updatedAt };
    return db.orm.transaction(async (tx) => {
      await lockHistory(tx);
      const served = await findServedRate(tx);
      const latest = await findLatestReading(tx);
      const held = latest && latest.status === 'held' ? toReading(latest) : null;
      const verdict = judgeReading(reading, served ? toReading(served) : null, held);
      if (verdict.action === 'accept' || verdict.action === 'hold') {
        const status = verdict.action === 'accept' ? 'accepted' : 'held';
        await insertReading(tx, { ...reading, buy: quote.buy, status, fetchedAt: clock.now(), note: verdict.note });
      }
      return verdict;
    });
  }

  /**
   * Fetches the upstream and records what it says. An upstream failure is thrown (the job retries);
   * a refused value is logged and leaves the served rate as it was.
   */
  async function refresh(): Promise<Verdict | { action: 'fixed' }> {
    if (fixedRate !== null) return { action: 'fixed' };
    const quote = await fetchDolarApiQuote(sourceUrl);
    const verdict = await record(quote);
    if (verdict.action === 'reject' || verdict.action === 'hold') {
      logger.warn(
        { rate: quote.rate, note: verdict.note },
        `exchange rate reading ${verdict.action === 'hold' ? 'held' : 'rejected'}`,
      );
    } else if (verdict.action === 'accept') {
      logger.info({ rate: quote.rate, note: verdict.note }, 'exchange rate updated');
    }
    return verdict;
  }

  // Without a network (a laptop, a closed server) every refresh fails: say so once an hour, in one
  // line without a stack, with the way out, instead of a stack trace every few minutes.
  let unreachableSince: Date | null = null;
  let warnedAt = 0;
  function warnUnreachable(err: unknown) {
    const now = clock.now();
    unreachableSince ??= now;
    const reason = err instanceof Error ? err.message : String(err);
    if (now.getTime() - warnedAt < UNREACHABLE_WARNING_EVERY_MS) {
      logger.debug({ source: sourceUrl, reason }, 'exchange rate refresh failed again');
      return;
    }
    warnedAt = now.getTime();
    logger.warn(
      { source: sourceUrl, reason, since: unreachableSince.toISOString() },
      'exchange rate source unreachable; serving the last known rate. Without network access, set EXCHANGE_RATE_FIXED (for example EXCHANGE_RATE_FIXED=1200.50) to serve a fixed rate',
    );
  }

  jobs.define({
    name: EXCHANGE_REFRESH_JOB,
    schedule: EXCHANGE_REFRESH_SCHEDULE,
    retryLimit: 2,
    retryDelaySeconds: 60,
    expireInSeconds: 60,
    handler: async () => {
      try {
        await refresh();
        unreachableSince = null;
      } catch (err) {
        warnUnreachable(err);
        throw err;
      }
    },
  });

  /**
   * Queues one refresh now (a worker starting). pg-boss keeps one job per singletonKey per slot of
   * singletonSeconds, so several workers starting within the same 5 minutes queue one refresh.
   */
  async function requestRefresh(): Promise<void> {
    if (fixedRate !== null) return;
    await jobs.send(EXCHANGE_REFRESH_JOB, {}, { singletonKey: 'startup', singletonSeconds: STARTUP_REFRESH_SLOT_SECONDS });
  }

  return { currentRate, refresh, requestRefresh, warnUnreachable };
}
