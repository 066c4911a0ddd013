import { fileURLToPath } from 'node:url';
import { parseCircular, parseDependencyTree } from 'dpdm';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every import circle among the files of src/ (server and browser), type-only imports included. */
async function importCircles(): Promise<string[]> {
  const tree = await parseDependencyTree(['src/**/*.ts', 'src/**/*.tsx'], {
    context: ROOT,
    cwd: ROOT,
    tsconfig: `${ROOT}tsconfig.json`,
    // Type-only imports count: a circle of types is still two files that cannot be read apart.
    transform: false,
    exclude: /node_modules|\.test\.tsx?$/,
  });
  return [...new Set(parseCircular(tree).map((circle) => circle.join(' > ')))].sort();
}

describe('import circles', () => {
  it('there are none in src/', async () => {
    expect(await importCircles()).toEqual([]);
  }, 180_000); // parsing every file of src/ takes seconds, more on a loaded machine

  it('the check finds a circle (two files that import each other)', async () => {
    const fixture = fileURLToPath(new URL('./fixtures/circle/', import.meta.url));
    const tree = await parseDependencyTree(['a.ts'], { context: fixture, cwd: fixture, transform: false });
    expect(parseCircular(tree).map((c) => c.join(' > '))).toEqual(['a.ts > b.ts']);
  });
});
