// `npm run serve` (serve.mjs) against a stand-in project: with the build up to date it runs the compiled
// command line with the arguments it was given: on Linux with glibc in a child with the allocator settings (the
// stand-in's allocator.js is the real server/process/allocator.ts, bundled), elsewhere or when the person set their
// own GLIBC_TUNABLES by calling its main() in the same process; when the build fails the server is not started.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterEach, beforeEach, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { OUTPUTS, writeStamp } from './build-if-stale.mjs';
import { GLIBC_ALLOCATOR_TUNABLES, runsOnGlibc } from '../server/process/allocator.js';

const run = promisify(execFile);
const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'serve.mjs');
const LATER_MS = 60_000;

let root: string;
beforeEach(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-serve-'));
  for (const out of OUTPUTS as string[]) {
    fs.mkdirSync(path.dirname(path.join(root, out)), { recursive: true });
    fs.writeFileSync(path.join(root, out), '');
  }
  // Says where it runs: "child" when started again by serve.mjs (which gives it an IPC channel), "same" when called.
  fs.writeFileSync(
    path.join(root, 'dist/server/cli.js'),
    [
      "import { fileURLToPath } from 'node:url';",
      'export function main(argv) { process.stdout.write(`main ${argv.join(" ")} ${process.channel ? "child" : "same"} tunables=${process.env.GLIBC_TUNABLES ?? "none"}\\n`); process.disconnect?.(); }',
      'if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv.slice(2));',
    ].join('\n'),
  );
  await build({ entryPoints: [path.join(path.dirname(script), '..', 'server', 'process', 'allocator.ts')], bundle: true, platform: 'node', format: 'esm', outfile: path.join(root, 'dist/server/process/allocator.js'), logLevel: 'silent' });
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'stand-in', private: true, type: 'module', scripts: { build: 'node -e "process.exit(4)"' } }));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const glibc = process.platform === 'linux' && runsOnGlibc();
const { GLIBC_TUNABLES: _person, ...envWithout } = process.env;

it('with nothing to build: runs the server command line with the arguments, on glibc in a child with the allocator settings', async () => {
  writeStamp(root, Date.now() + LATER_MS);
  const { stdout, stderr } = await run(process.execPath, [script, '--port', '8787'], { cwd: root, env: envWithout });
  expect(stdout).toBe(glibc ? `main --port 8787 child tunables=${GLIBC_ALLOCATOR_TUNABLES}\n` : 'main --port 8787 same tunables=none\n');
  expect(stderr).toBe('');
});

it('with the person\'s own GLIBC_TUNABLES (even empty): runs it in the same process, with theirs', async () => {
  writeStamp(root, Date.now() + LATER_MS);
  const { stdout } = await run(process.execPath, [script, '--port', '8787'], { cwd: root, env: { ...envWithout, GLIBC_TUNABLES: '' } });
  expect(stdout).toBe('main --port 8787 same tunables=\n');
});

it('when the needed build fails: exits with its code and starts nothing', async () => {
  await expect(run(process.execPath, [script], { cwd: root })).rejects.toMatchObject({ code: 4, stdout: '' });
});
