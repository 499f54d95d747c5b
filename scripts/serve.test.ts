// `npm run serve` (serve.mjs) against a stand-in project: with the build up to date it runs the compiled
// command line's main() with the arguments it was given; when the build fails the server is not started.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { OUTPUTS, writeStamp } from './build-if-stale.mjs';

const run = promisify(execFile);
const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'serve.mjs');
const LATER_MS = 60_000;

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-serve-'));
  for (const out of OUTPUTS as string[]) {
    fs.mkdirSync(path.dirname(path.join(root, out)), { recursive: true });
    fs.writeFileSync(path.join(root, out), '');
  }
  fs.writeFileSync(
    path.join(root, 'dist/server/cli.js'),
    'export function main(argv) { process.stdout.write(`main ${argv.join(" ")}\\n`); }\n',
  );
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'stand-in', private: true, type: 'module', scripts: { build: 'node -e "process.exit(4)"' } }));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

it('with nothing to build: runs the server command line in the same process, with the arguments', async () => {
  writeStamp(root, Date.now() + LATER_MS);
  const { stdout, stderr } = await run(process.execPath, [script, '--port', '8787'], { cwd: root });
  expect(stdout).toBe('main --port 8787\n');
  expect(stderr).toBe('');
});

it('when the needed build fails: exits with its code and starts nothing', async () => {
  await expect(run(process.execPath, [script], { cwd: root })).rejects.toMatchObject({ code: 4, stdout: '' });
});
