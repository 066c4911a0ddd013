// `npm run bench -- <name> [args]` runs bench/<name>.ts: its default export or its run(), with the remaining args.
// Benchmarks are bounded and only talk to 127.0.0.1.
import { existsSync } from 'node:fs';

const [name, ...args] = process.argv.slice(2);
const script = new URL(`./${name}.ts`, import.meta.url);
if (!name || !/^[a-z][a-z0-9-]*$/.test(name) || name === 'index' || !existsSync(script)) {
  process.stderr.write(`usage: npm run bench -- <name>   (a script bench/<name>.ts; got ${JSON.stringify(name ?? '')})\n`);
  process.exit(2);
}
const bench = (await import(script.href)) as {
  default?: (args: string[]) => Promise<void>;
  run?: (args: string[]) => Promise<void>;
};
const entry = bench.default ?? bench.run;
if (typeof entry === 'function') await entry(args);
