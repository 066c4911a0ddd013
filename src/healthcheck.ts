/**
 * The container's HEALTHCHECK: exits 0 when this process answers /healthz (the web port, or the
 * worker's WORKER_PORT), 1 otherwise. Liveness only; load balancers ask /readyz.
 */
const worker = process.env['ROLE'] === 'worker';
const port = (worker ? process.env['WORKER_PORT'] : process.env['PORT']) || (worker ? '3001' : '3000');

try {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
}
