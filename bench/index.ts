// npm run bench -- <name>: runs bench/<name>.ts (its default export, when it has one).
import { existsSync } from 'node:fs';

const [name, ...args] = process.argv.slice(2);
if (!name || !/^[a-z][a-z0-9-]*$/.test(name) || name === 'index') {
  process.stderr.write('usage: npm run bench -- <name>   (a script bench/<name>.ts, e.g. scanner)\n');
  process.exit(2);
}
const script = new URL(`./${name}.ts`, import.meta.url);
if (!existsSync(script)) {
  process.stderr.write(`bench: no benchmark named "${name}" (bench/${name}.ts)\n`);
  process.exit(2);
}
const module = (await import(script.href)) as { default?: (args: string[]) => Promise<void> };
if (typeof module.default === 'function') await module.default(args);
