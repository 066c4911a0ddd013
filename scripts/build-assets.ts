import { gzippedSize, writeAssets } from '../src/http/assets.ts';

// `npm run build`: the browser bundles and static files, content-hashed, in dist/assets.
const assets = await writeAssets();
for (const asset of assets) {
  process.stdout.write(`${asset.file}  ${(asset.body.length / 1024).toFixed(1)} KB, ${(gzippedSize(asset) / 1024).toFixed(1)} KB gzip\n`);
}
