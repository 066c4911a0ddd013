import { type ChildProcess, spawn } from 'node:child_process';

/** A service process started by a test: its output so far and its exit. */
export interface Running {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  /** Exit code, and milliseconds from the test's kill() to the exit. */
  exit: Promise<{ code: number | null; ms: number }>;
}

/** Starts `node --import tsx src/main.ts` (or `args`) with a clean environment plus `env`. */
export function startProcess(env: Record<string, string>, args = ['--import', 'tsx', 'src/main.ts']): Running {
  const child = spawn(process.execPath, args, {
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stdout!.on('data', (chunk) => stdout.push(String(chunk)));
  child.stderr!.on('data', (chunk) => stderr.push(String(chunk)));
  let killedAt = 0;
  const originalKill = child.kill.bind(child);
  child.kill = (signal) => {
    killedAt = Date.now();
    return originalKill(signal);
  };
  const exit = new Promise<{ code: number | null; ms: number }>((resolve) =>
    child.on('exit', (code) => resolve({ code, ms: killedAt ? Date.now() - killedAt : 0 })),
  );
  return { child, stdout, stderr, exit };
}

/** Waits until the process's stdout matches `pattern`; returns the first capture group (or the match). */
export async function waitForOutput(running: Running, pattern: RegExp, timeoutMs = 120_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = pattern.exec(running.stdout.join(''));
    if (match) return match[1] ?? match[0];
    if (running.child.exitCode !== null) {
      throw new Error(
        `exited early (${running.child.exitCode}): ${running.stderr.join('')}${running.stdout.join('').slice(-2000)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no ${pattern} after ${timeoutMs} ms: ${running.stderr.join('')}`);
}

/** The URL a web process listens on (Fastify's own log line). */
export const listeningUrl = (running: Running, timeoutMs = 120_000) =>
  waitForOutput(running, /Server listening at (http:\/\/127\.0\.0\.1:\d+)/, timeoutMs);

/** The URL of a worker's health server. */
export const workerUrl = (running: Running, timeoutMs = 120_000) =>
  waitForOutput(running, /"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"worker health server listening"/, timeoutMs);
