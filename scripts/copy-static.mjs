// Copies the renderer's static files (HTML, CSS, icons) next to its compiled scripts.
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const src = 'renderer';
const out = join('dist', 'renderer');
mkdirSync(out, { recursive: true });
for (const name of readdirSync(src)) {
  if (/\.(html|css|svg|png|ico|webmanifest)$/.test(name)) cpSync(join(src, name), join(out, name));
}
