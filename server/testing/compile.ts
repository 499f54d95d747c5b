// Compile the project into a private folder for tests that must run the built JavaScript (the plain-Node entry,
// worker threads). Private, because such tests may alter their copy; inside the repository, so the compiled
// files resolve node_modules and the package's "type": "module".
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BUILD_TIMEOUT_MS = 110_000;

/** Compile into `<repo>/.cache/<prefix>XXXXXX` and return that folder. */
export function compileProject(prefix: string): string {
  mkdirSync(path.join(REPO_ROOT, '.cache'), { recursive: true });
  const outDir = mkdtempSync(path.join(REPO_ROOT, '.cache', prefix));
  // Type errors do not stop tsc from emitting; the callers check for the files they need.
  spawnSync(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--outDir', outDir], {
    cwd: REPO_ROOT,
    timeout: BUILD_TIMEOUT_MS,
    stdio: 'ignore',
  });
  return outDir;
}

/**
 * Bundle one TypeScript entry (a child a kill test runs and kills) into `<repo>/.cache/<prefix>XXXXXX/<name>.mjs`
 * and return the file: inside the repository, so the bundle finds node_modules' sqlite3 binding, left external.
 */
export async function bundleChild(entry: string, prefix: string): Promise<string> {
  const { build } = await import('esbuild');
  await fs.mkdir(path.join(REPO_ROOT, '.cache'), { recursive: true });
  const out = await fs.mkdtemp(path.join(REPO_ROOT, '.cache', prefix));
  const outfile = path.join(out, `${path.basename(entry, '.ts')}.mjs`);
  await build({ entryPoints: [path.join(REPO_ROOT, entry)], bundle: true, platform: 'node', format: 'esm', outfile, external: ['sqlite3'], logLevel: 'silent' });
  return outfile;
}
