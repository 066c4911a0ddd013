import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

const root = join(import.meta.dirname, '..');
const read = (name: string) => readFileSync(join(root, name), 'utf8');

/**
 * The variables loadConfig reads, recorded by a proxy standing in for process.env; over several
 * environments, since some settings are read only when the one they depend on is set.
 */
function variablesRead(envs: Record<string, string>[]): Set<string> {
  const seen = new Set<string>();
  for (const base of envs) {
    const env = new Proxy(base, {
      get(target, key) {
        if (typeof key === 'string') seen.add(key);
        return Reflect.get(target, key);
      },
    });
    loadConfig(env);
  }
  return seen;
}

/** `KEY=value` and `# KEY=value` lines of .env.example. */
function exampleEntries(): Map<string, { value: string; commented: boolean }> {
  const entries = new Map<string, { value: string; commented: boolean }>();
  for (const line of read('.env.example').split('\n')) {
    const match = /^(#\s*)?([A-Z][A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match) entries.set(match[2]!, { value: match[3]!, commented: match[1] !== undefined });
  }
  return entries;
}

describe('.env.example and the README stay true to the configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mostrador-env-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists every variable the configuration reads, and nothing it does not', () => {
    const read = variablesRead([
      { DATA_DIR: dir },
      { DATA_DIR: dir, LLM_BASE_URL: 'http://127.0.0.1:1/v1', LLM_MODEL: 'm' },
      { DATABASE_URL: 'postgres://u@h/db', SECRET_KEY: 'k'.repeat(40) },
    ]);
    const listed = new Set(exampleEntries().keys());
    expect([...read].filter((name) => !listed.has(name)).sort()).toEqual([]);
    expect([...listed].filter((name) => !read.has(name)).sort()).toEqual([]);
  });

  it('loads as given: the uncommented values are valid settings', () => {
    const env: Record<string, string> = {};
    for (const [name, { value, commented }] of exampleEntries()) if (!commented) env[name] = value;
    expect(() => loadConfig({ ...env, DATA_DIR: dir })).not.toThrow();
  });

  it('the README names every variable', () => {
    const readme = read('README.md');
    const missing = [...exampleEntries().keys()].filter((name) => !readme.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });
});
