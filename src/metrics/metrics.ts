import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../db/client.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';

export interface Metrics {
  readonly registry: Registry;
  /** One answered HTTP request: `route` is the route's pattern (never the raw URL), or `unmatched`. */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** One inbound event: `accepted`, `duplicate` (idempotent replay) or `refused` with the error code. */
  countEvent(result: 'accepted' | 'duplicate' | 'refused', code: string): void;
  /** The Prometheus text exposition. */
  render(): Promise<string>;
}

export interface MetricsDeps {
  db: Database;
  jobs: JobQueue;
  logger: Logger;
}

/**
 * The process's metrics, in a registry of its own (several containers in one test process do not
 * collide). Counters are per process; the database gauges (outbox backlog, delivery lag, queue
 * depth, rate age) describe the whole cluster and read the same from every process.
 */
export function createMetrics({ db, jobs, logger }: MetricsDeps): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'mostrador_' });

  const requests = new Counter({
    name: 'mostrador_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'mostrador_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const requestSeries = new Map<
    string,
    { count: ReturnType<typeof requests.labels>; time: ReturnType<typeof duration.labels> }
  >();
  const events = new Counter({
    name: 'mostrador_inbound_events_total',
    help: 'Events received on the integration endpoint, by result and code (ok, or the refusal code)',
    labelNames: ['result', 'code'] as const,
    registers: [registry],
  });
  const eventSeries = new Map<string, ReturnType<typeof events.labels>>();

  // A gauge read from the database at scrape time; a failing read leaves it out of the answer.
  const fromDatabase = (name: string, help: string, read: (gauge: Gauge) => Promise<void>, labelNames: string[] = []) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        try {
          await read(this);
        } catch (err) {
          logger.debug({ err, metric: name }, 'metric could not be read');
        }
      },
    });

  const scalar = async (text: string) => {
    const [row] = await db.query<{ v: number | null }>(text);
    return row?.v === null || row?.v === undefined ? null : Number(row.v);
  };

  fromDatabase('mostrador_outbox_backlog', 'Outbound events committed and not yet relayed to deliveries', async (g) => {
    g.set((await scalar('SELECT count(*)::float8 AS v FROM outbox_events WHERE dispatched_at IS NULL')) ?? 0);
  });
  fromDatabase('mostrador_webhook_deliveries_pending', 'Webhook deliveries waiting to be sent or retried', async (g) => {
    g.set((await scalar("SELECT count(*)::float8 AS v FROM webhook_deliveries WHERE status = 'pending'")) ?? 0);
  });
  fromDatabase(
    'mostrador_webhook_delivery_lag_seconds',
    'How long the oldest due webhook delivery has been waiting (0 when none is due)',
    async (g) => {
      const lag = await scalar(
        `SELECT extract(epoch FROM now() - min(next_attempt_at))::float8 AS v FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= now()`,
      );
      g.set(Math.max(0, lag ?? 0));
    },
  );
  fromDatabase(
    'mostrador_job_queue_depth',
    'Background jobs waiting (created or retrying), by queue',
    async (g) => {
      for (const [queue, depth] of Object.entries(await jobs.depths())) g.set({ queue }, depth);
    },
    ['queue'],
  );
  fromDatabase('mostrador_exchange_rate_age_seconds', 'Age of the last accepted exchange rate', async (g) => {
    const age = await scalar(
      "SELECT extract(epoch FROM now() - max(fetched_at))::float8 AS v FROM exchange_rates WHERE status = 'accepted'",
    );
    if (age !== null) g.set(age);
  });
  new Gauge({
    name: 'mostrador_db_pool_connections',
    help: 'Connections of this process pool to PostgreSQL, by state (total, idle, waiting clients)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const pool = db.pool;
      if (!pool) return;
      this.set({ state: 'total' }, pool.totalCount);
      this.set({ state: 'idle' }, pool.idleCount);
      this.set({ state: 'waiting' }, pool.waitingCount);
    },
  });

  return {
    registry,
    observeRequest(method, route, status, seconds) {
      // The labelled children are looked up once per (method, route, status) and kept: prom-client
      // validates and hashes the labels on every call otherwise, on every answered request.
      const series = kept(requestSeries, `${method} ${status} ${route}`, () => {
        const labels = [method, route, String(status)] as const;
        return { count: requests.labels(...labels), time: duration.labels(...labels) };
      });
      series.count.inc();
      series.time.observe(seconds);
    },
    countEvent(result, code) {
      // Kept like the request series: one labelled child per (result, code), not a label hash per event.
      kept(eventSeries, `${result} ${code}`, () => events.labels(result, code)).inc();
    },
    render: () => registry.metrics(),
  };
}

/** The value kept under `key`, made (and kept) the first time it is asked for. */
function kept<T>(map: Map<string, T>, key: string, make: () => T): T {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}
