import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../logger.ts';

export const DEMO_CREDENTIALS_FILE = 'demo-credentials.txt';

/**
 * Shows the first boot's demo credentials once (issue 25). On a terminal the banner is printed, as
 * a person is reading it; otherwise the output goes to a file or a log collector, so the banner is
 * written to DATA_DIR/demo-credentials.txt, readable by the service's user only (0600), and the
 * log names that path and nothing else.
 */
export function deliverDemoBanner(
  banner: string,
  out: { isTTY?: boolean | undefined; write(text: string): unknown },
  dataDir: string,
  logger: Logger,
): void {
  if (out.isTTY) {
    out.write(banner);
    return;
  }
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, DEMO_CREDENTIALS_FILE);
  writeFileSync(path, banner, { mode: 0o600 });
  chmodSync(path, 0o600); // an older file keeps its mode on rewrite
  logger.warn({ path }, 'demo company created: its credentials are in this file, shown once; keep them and delete it');
}
