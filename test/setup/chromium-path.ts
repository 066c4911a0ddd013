import { accessSync, constants, statSync } from 'node:fs';

export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Which Chromium the browser tests drive: `CHROMIUM_PATH` when it names one, Debian's
 * /usr/bin/chromium when installed, otherwise the one shipped inside the @sparticuz/chromium npm
 * package (unpacked once into the temporary directory), so `npm install && npm test` passes on a
 * machine with no browser installed. Called once per run, by the global setup, before any worker.
 */
export async function resolveChromium(env: NodeJS.ProcessEnv = process.env): Promise<{ path: string; source: string }> {
  const given = env['CHROMIUM_PATH'];
  if (given) {
    if (!isExecutableFile(given)) throw new Error(`CHROMIUM_PATH=${given} is not an executable file`);
    return { path: given, source: 'CHROMIUM_PATH' };
  }
  if (isExecutableFile(DEBIAN_CHROMIUM)) return { path: DEBIAN_CHROMIUM, source: 'debian' };
  const { default: bundled } = await import('@sparticuz/chromium');
  bundled.setGraphicsMode = false;
  return { path: await bundled.executablePath(), source: '@sparticuz/chromium' };
}
