// `npm run serve`: build when a source changed since the last build (build-if-stale.mjs), then run the
// headless server in this same process, so a start with nothing to build pays for one Node start, not two.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIfStale } from './build-if-stale.mjs';

// npm runs scripts in the package's folder, as the build's own relative paths expect.
const root = process.cwd();
const code = buildIfStale(root);
if (code !== 0) {
  process.exitCode = code;
} else {
  const cli = await import(pathToFileURL(path.join(root, 'dist', 'server', 'cli.js')).href);
  cli.main(process.argv.slice(2));
}
