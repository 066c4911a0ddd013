import { Agent, request } from 'node:http';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** The first answers that were not what `isOk` expected (up to 20): path, status and the body's start. */
  unexpected: { path: string; status: number; body: string }[];
  /** Each path's own median and p99, slowest p99 first (which request makes the tail). */
  byPath: { path: string; requests: number; p50Ms: number; p99Ms: number }[];
}

/** The q-quantile of ascending latencies (NaN when there are none). */
function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/**
 * Sends `total` GET requests to 127.0.0.1 with `concurrency` keep-alive connections and
 * measures each one. Bounded by count (and by maxSeconds as a safety stop), never open-ended.
 */
export async function runLoad(options: {
  port: number;
  paths: string[];
  total: number;
  concurrency: number;
  maxSeconds: number;
  headers?: Record<string, string>;
  isOk?: (status: number, body: string) => boolean;
}): Promise<LoadResult> {
  const { port, paths, total, concurrency, maxSeconds, headers = {}, isOk = (status) => status === 200 } = options;
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  const perPath = new Map<string, number[]>();
  let next = 0;
  let errors = 0;
  const unexpected: LoadResult['unexpected'] = [];
  const note = (path: string, status: number, body: string) => {
    errors += 1;
    if (unexpected.length < 20) unexpected.push({ path, status, body: body.slice(0, 200) });
  };
  const started = process.hrtime.bigint();
  const deadline = Date.now() + maxSeconds * 1000;

  const one = (path: string) =>
    new Promise<void>((resolve) => {
      const sentAt = process.hrtime.bigint();
      const req = request({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => {
          const ms = Number(process.hrtime.bigint() - sentAt) / 1e6;
          latencies.push(ms);
          const own = perPath.get(path);
          if (own) own.push(ms);
          else perPath.set(path, [ms]);
          if (!isOk(res.statusCode ?? 0, body)) note(path, res.statusCode ?? 0, body);
          resolve();
        });
      });
      req.on('error', (err) => {
        note(path, 0, String(err));
        resolve();
      });
      req.end();
    });

  const worker = async () => {
    while (next < total && Date.now() < deadline) {
      const path = paths[next % paths.length]!;
      next += 1;
      await one(path);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const byPath = [...perPath].map(([path, own]) => {
    own.sort((a, b) => a - b);
    return { path, requests: own.length, p50Ms: quantile(own, 0.5), p99Ms: quantile(own, 0.99) };
  });
  byPath.sort((a, b) => b.p99Ms - a.p99Ms);
  return {
    requests: latencies.length,
    errors,
    unexpected,
    seconds,
    perSecond: latencies.length / seconds,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    byPath,
  };
}
