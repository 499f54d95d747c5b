// The start-up build check (build-if-stale.mjs) against a small stand-in project: built once, not again
// until a source, a folder's listing, or an output changes.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { OUTPUTS, staleReason, STAMP, STAMP_SLACK_MS, writeStamp } from './build-if-stale.mjs';

const run = promisify(execFile);
const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'build-if-stale.mjs');
const LATER_MS = 60_000;

let root: string;

function write(rel: string, text = 'x'): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

/** Date a file or folder `ms` from now, as if it had been saved then. */
function touch(rel: string, ms: number): void {
  const t = (Date.now() + ms) / 1000;
  fs.utimesSync(path.join(root, rel), t, t);
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-stale-'));
  write('server/index.ts');
  write('server/index.test.ts');
  write('renderer/index.html');
  write('tsconfig.json', '{}');
  for (const out of OUTPUTS as string[]) write(out);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('staleReason', () => {
  it('asks for a build when none was recorded or an output is missing', () => {
    expect(staleReason(root)).toBe('no build was recorded');
    writeStamp(root, Date.now() + LATER_MS);
    expect(staleReason(root)).toBeUndefined();
    fs.rmSync(path.join(root, 'dist/server/cli.js'));
    expect(staleReason(root)).toBe('dist/server/cli.js is missing');
  });

  it('asks for a build when a source or a compiler setting is newer than the build', () => {
    writeStamp(root, Date.now());
    touch('server/index.ts', LATER_MS);
    expect(staleReason(root)).toBe('sources changed since the last build');
    writeStamp(root, Date.now() + 2 * LATER_MS);
    expect(staleReason(root)).toBeUndefined();
    touch('tsconfig.json', 3 * LATER_MS);
    expect(staleReason(root)).toBe('sources changed since the last build');
  });

  it('notices a deleted source through its folder, and ignores edited tests', () => {
    writeStamp(root, Date.now() + LATER_MS);
    touch('server/index.test.ts', 2 * LATER_MS);
    touch('server', 0);
    expect(staleReason(root)).toBeUndefined();
    fs.rmSync(path.join(root, 'renderer/index.html'));
    touch('renderer', 2 * LATER_MS);
    expect(staleReason(root)).toBe('sources changed since the last build');
  });

  it('dates the stamp before the build began, so a file saved during the build counts as newer', () => {
    const started = Date.now();
    writeStamp(root, started);
    expect(fs.statSync(path.join(root, STAMP)).mtimeMs).toBeLessThanOrEqual(started - STAMP_SLACK_MS + 1);
    touch('server/index.ts', 0);
    expect(staleReason(root)).toBe('sources changed since the last build');
  });
});

describe('build-if-stale.mjs', () => {
  it('runs `npm run build` once, then starts without building while nothing changes', async () => {
    const counter = path.join(root, 'builds.txt');
    write(
      'package.json',
      JSON.stringify({ name: 'stand-in', private: true, scripts: { build: `node -e "require('fs').appendFileSync('builds.txt','b')"` } }),
    );
    // Sources saved long before the build (one saved just before it would, rightly, earn one more build).
    for (const rel of ['server/index.ts', 'server/index.test.ts', 'server', 'renderer/index.html', 'renderer', 'tsconfig.json']) {
      touch(rel, -LATER_MS);
    }
    const first = await run(process.execPath, [script], { cwd: root });
    expect(first.stderr).toContain('Building Satchel (no build was recorded)');
    await run(process.execPath, [script], { cwd: root });
    expect(fs.readFileSync(counter, 'utf8')).toBe('b');
  });

  it('fails with the build and records nothing when the build fails', async () => {
    write('package.json', JSON.stringify({ name: 'stand-in', private: true, scripts: { build: 'node -e "process.exit(3)"' } }));
    await expect(run(process.execPath, [script], { cwd: root })).rejects.toMatchObject({ code: 3 });
    expect(fs.existsSync(path.join(root, STAMP))).toBe(false);
  });
});
