import { Counter, collectDefaultMetrics, Gauge, type Metric, Registry } from 'prom-client';
import type { Database } from '../db/client.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';

export interface Metrics {
  readonly registry: Registry;
  /**
   * The request series of one route pattern (never the raw URL), or `unmatched`: asked for once per
   * route when it is registered; each answered request is then `observe(method, status, seconds)`.
   */
  requestsOf(route: string): RouteRequests;
  /** One inbound event: `accepted`, `duplicate` (idempotent replay) or `refused` with the error code. */
  countEvent(result: 'accepted' | 'duplicate' | 'refused', code: string): void;
  /** The Prometheus text exposition. */
  render(): Promise<string>;
}

export interface RouteRequests {
  observe(method: string, status: number, seconds: number): void;
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

  const requests = requestMetrics(registry);
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
    requestsOf: requests.of,
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

const REQUEST_LABELS = ['method', 'route', 'status'] as const;
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One (method, route, status) series: plain numbers, added to on every answered request. */
interface RequestSeries {
  labels: Record<(typeof REQUEST_LABELS)[number], string>;
  count: number;
  sum: number;
  /** Answers per bucket, not cumulative: index i is `<= DURATION_BUCKETS[i]`, the last one above them all. */
  perBucket: number[];
}

/**
 * `mostrador_http_requests_total` (counter) and `mostrador_http_request_duration_seconds`
 * (histogram), by method, route pattern and status. Every answered request adds to plain numbers
 * (a count, a sum and one bucket, found once per route and status); the Prometheus text is made
 * from them at scrape time, in the same form prom-client's Counter and Histogram write. prom-client
 * validated and hashed the labels on every observation, twice (~1 µs per answer).
 */
function requestMetrics(registry: Registry) {
  const all: RequestSeries[] = [];
  const byRoute = new Map<string, RouteRequests>();
  const add = (labels: RequestSeries['labels']): RequestSeries => {
    const series = { labels, count: 0, sum: 0, perBucket: new Array<number>(DURATION_BUCKETS.length + 1).fill(0) };
    all.push(series);
    return series;
  };
  const exposed = (name: string, help: string, type: 'counter' | 'histogram', values: () => object[]) => {
    const metric = {
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
      reset: () => {
        for (const series of all) {
          series.count = 0;
          series.sum = 0;
          series.perBucket.fill(0);
        }
      },
    };
    // prom-client's Registry writes any metric whose get() answers in its own shape (the one its
    // Counter and Histogram answer); its types list only its own classes.
    registry.registerMetric(metric as unknown as Metric);
  };
  exposed('mostrador_http_requests_total', 'HTTP requests answered, by method, route pattern and status', 'counter', () =>
    all.filter((s) => s.count > 0).map((s) => ({ labels: { ...s.labels }, value: s.count })),
  );
  const durationName = 'mostrador_http_request_duration_seconds';
  exposed(durationName, 'Time to answer an HTTP request, by method, route pattern and status', 'histogram', () =>
    all
      .filter((s) => s.count > 0)
      .flatMap((s) => {
        let below = 0;
        const buckets = DURATION_BUCKETS.map((le, i) => {
          below += s.perBucket[i]!;
          return { labels: { le, ...s.labels }, value: below, metricName: `${durationName}_bucket` };
        });
        return [
          ...buckets,
          { labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${durationName}_bucket` },
          { labels: { ...s.labels }, value: s.sum, metricName: `${durationName}_sum` },
          { labels: { ...s.labels }, value: s.count, metricName: `${durationName}_count` },
        ];
      }),
  );

  return {
    of(route: string): RouteRequests {
      const known = byRoute.get(route);
      if (known) return known;
      const byMethod = new Map<string, Map<number, RequestSeries>>();
      const requests: RouteRequests = {
        observe(method, status, seconds) {
          let byStatus = byMethod.get(method);
          if (byStatus === undefined) {
            byStatus = new Map();
            byMethod.set(method, byStatus);
          }
          let series = byStatus.get(status);
          if (series === undefined) {
            series = add({ method, route, status: String(status) });
            byStatus.set(status, series);
          }
          let bucket = 0;
          while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket++;
          series.perBucket[bucket]! += 1;
          series.count += 1;
          series.sum += seconds;
        },
      };
      byRoute.set(route, requests);
      return requests;
    },
  };
}
