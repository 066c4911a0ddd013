// `npm run bench -- <name>` runs bench/<name>.ts. Benchmarks only talk to 127.0.0.1 and are bounded.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const name = process.argv[2];
const here = dirname(fileURLToPath(import.meta.url));
if (!name || !/^[a-z0-9-]+$/.test(name) || name === 'index' || !existsSync(join(here, `${name}.ts`))) {
  process.stderr.write(`usage: npm run bench -- <name>   (a file bench/<name>.ts; got ${JSON.stringify(name ?? '')})\n`);
  process.exit(2);
}
const bench = (await import(`./${name}.ts`)) as { run(): Promise<void> };
await bench.run();
