// `npm run bench -- <name> [args]` runs bench/<name>.ts: its default export (called with the args)
// or its exported run(). Benchmarks only talk to 127.0.0.1, are bounded, and print a ratio
// against a baseline measured in the same run.
import { existsSync } from 'node:fs';

/** Names that read better on the command line than the file they run. */
const ALIASES: Record<string, string> = { delivery: 'webhooks-delivery' };

const [given, ...args] = process.argv.slice(2);
const name = given ? (ALIASES[given] ?? given) : '';
const script = new URL(`./${name}.ts`, import.meta.url);
if (!/^[a-z][a-z0-9-]*$/.test(name) || ['index', 'load', 'common', 'scanner-data'].includes(name) || !existsSync(script)) {
  process.stderr.write(`usage: npm run bench -- <ingest|scanner|delivery|pos|catalog>   (got ${JSON.stringify(given ?? '')})\n`);
  process.exit(2);
}
const module = (await import(script.href)) as { default?: (args: string[]) => Promise<void>; run?: () => Promise<void> };
if (typeof module.default === 'function') await module.default(args);
else if (typeof module.run === 'function') await module.run();
