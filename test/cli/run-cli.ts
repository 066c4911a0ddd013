import { type CliIo, runCli } from '../../src/cli/run.ts';
import type { Container } from '../../src/container.ts';

/** Runs one CLI command in-process on a test container and captures what it printed. */
export async function runCliOn(container: Container, argv: string[]) {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (text) => {
      out += text;
    },
    err: (text) => {
      err += text;
    },
  };
  // The CLI closes its container when done; hand it one whose close() leaves the test database open.
  const code = await runCli(argv, io, async () => ({ ...container, close: async () => {} }));
  return { code, out, err };
}
