// Copies what the compiled program reads at run time next to it: migrations and static files under
// src/, the operator docs (served at /docs) and content/. `node dist/src/main.js` needs all of them.
import { cpSync, existsSync, rmSync } from 'node:fs';

const isAsset = (path) => !/\.(ts|tsx)$/.test(path);
cpSync('src', 'dist/src', { recursive: true, filter: (path) => isAsset(path) });
for (const dir of ['docs', 'content']) {
  rmSync(`dist/${dir}`, { recursive: true, force: true });
  if (existsSync(dir)) cpSync(dir, `dist/${dir}`, { recursive: true });
}
