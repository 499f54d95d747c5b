// `npm run serve`: build when a source changed since the last build (build-if-stale.mjs), then run the
// headless server. On Linux with glibc the server runs in a child started with the allocator settings
// (server/process/allocator.ts), decided here before any of the server's modules is loaded, so this waiting
// process stays a bare Node (~7 MiB of its own); elsewhere, or when the person set GLIBC_TUNABLES, in this same
// process, so a start with nothing to build pays for one Node start, not two.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIfStale } from './build-if-stale.mjs';

// npm runs scripts in the package's folder, as the build's own relative paths expect.
const root = process.cwd();
const code = buildIfStale(root);
if (code !== 0) {
  process.exitCode = code;
} else {
  const cliFile = path.join(root, 'dist', 'server', 'cli.js');
  const allocator = await import(pathToFileURL(path.join(root, 'dist', 'server', 'process', 'allocator.js')).href);
  if (allocator.wantsAllocatorRelaunch()) {
    allocator.relaunchWithAllocator(cliFile, process.argv.slice(2));
  } else {
    const cli = await import(pathToFileURL(cliFile).href);
    cli.main(process.argv.slice(2));
  }
}
