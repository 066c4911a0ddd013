import { buildCliContainer, type CliIo, runCli } from './run.ts';

const io: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

process.exitCode = await runCli(process.argv.slice(2), io, buildCliContainer);
