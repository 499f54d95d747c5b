// Copies the renderer's static files (HTML, CSS, icons) next to its compiled scripts, and the third-party
// assets it loads on first use (scripts/vendor-assets.mjs) into dist/renderer/vendor.
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { copyVendorAssets } from './vendor-assets.mjs';

const src = 'renderer';
const out = join('dist', 'renderer');
mkdirSync(out, { recursive: true });
for (const name of readdirSync(src)) {
  if (/\.(html|css|svg|png|ico|webmanifest)$/.test(name)) cpSync(join(src, name), join(out, name));
}
await copyVendorAssets(out);
