import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acceptOpenPaths, MAX_OPEN_PATHS, OpenPathQueue, pathArguments } from './open-paths.js';

const fsDeps = { realpath, stat };
let dir: string;
beforeEach(() => {
  dir = realpathSyncTmp();
  writeFileSync(path.join(dir, 'report.pdf'), '%PDF');
  writeFileSync(path.join(dir, '-dash.txt'), 'x');
  mkdirSync(path.join(dir, 'photos'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));
function realpathSyncTmp(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'satchel-open-'));
}

describe('pathArguments', () => {
  it('drops the executable, and the app folder when unpackaged', () => {
    expect(pathArguments(['/opt/Satchel/satchel', 'a.pdf', '--no-sandbox'], true)).toEqual(['a.pdf', '--no-sandbox']);
    expect(pathArguments(['/usr/bin/electron', '.', 'a.pdf'], false)).toEqual(['a.pdf']);
  });
  it("the value of Satchel's own flags is not a path", () => {
    expect(pathArguments(['satchel', '--state-dir', '/data', '--port', '8123', 'notes.md'], true)).toEqual(['--state-dir', '--port', 'notes.md']);
    expect(pathArguments(['satchel', '--port=8123', 'notes.md'], true)).toEqual(['--port=8123', 'notes.md']);
  });
  it('after --, a name starting with a dash is a path', () => {
    expect(pathArguments(['satchel', '--flag', '--', '-dash.txt'], true)).toEqual(['--flag', './-dash.txt']);
  });
});

describe('acceptOpenPaths', () => {
  it('accepts existing files and folders, absolute against the given folder, each once', async () => {
    const result = await acceptOpenPaths(['report.pdf', path.join(dir, 'photos'), './report.pdf', 'missing.txt'], dir, fsDeps);
    expect(result.accepted).toEqual([path.join(dir, 'report.pdf'), path.join(dir, 'photos')]);
    expect(result.refused).toEqual([{ path: path.join(dir, 'missing.txt'), reason: 'missing' }]);
  });
  it('refuses flags, URLs and junk; a Windows drive path is not a URL', async () => {
    const result = await acceptOpenPaths(['--inspect=9229', 'https://example.com/x.pdf', 'file:///etc/passwd', 'C:\\nope.txt', 'a\0b', ''], dir, fsDeps);
    expect(result.accepted).toEqual([]);
    expect(result.refused.map((r) => r.reason)).toEqual(['flag', 'url', 'url', 'missing', 'invalid', 'invalid']);
  });
  it('a relative path with no absolute folder to resolve it against is refused', async () => {
    expect((await acceptOpenPaths(['report.pdf'], 'relative/cwd', fsDeps)).refused).toEqual([{ path: 'report.pdf', reason: 'not-absolute' }]);
  });
  it('a symlink is followed to what it names, and that is what is accepted; a device is not', async () => {
    symlinkSync(path.join(dir, 'report.pdf'), path.join(dir, 'link.pdf'));
    expect((await acceptOpenPaths(['link.pdf'], dir, fsDeps)).accepted).toEqual([path.join(dir, 'report.pdf')]);
    if (process.platform !== 'win32') {
      expect((await acceptOpenPaths(['/dev/null'], dir, fsDeps)).refused).toEqual([{ path: '/dev/null', reason: 'not-file-or-folder' }]);
    }
  });
  it(`at most ${MAX_OPEN_PATHS} are accepted; the rest are refused as too many`, async () => {
    for (let i = 0; i < MAX_OPEN_PATHS + 3; i++) writeFileSync(path.join(dir, `f${i}.txt`), String(i));
    const names = Array.from({ length: MAX_OPEN_PATHS + 3 }, (_, i) => `f${i}.txt`);
    const result = await acceptOpenPaths(names, dir, fsDeps);
    expect(result.accepted).toHaveLength(MAX_OPEN_PATHS);
    expect(result.refused.map((r) => r.reason)).toEqual(['too-many', 'too-many', 'too-many']);
  });
});

describe('OpenPathQueue', () => {
  it('holds paths that arrive before the server, then delivers every batch in order', async () => {
    const delivered: string[][] = [];
    const queue = new OpenPathQueue({
      ...fsDeps,
      deliver: async (paths) => {
        delivered.push(paths);
        return { sessionId: 'inbox' };
      },
    });
    queue.add(['report.pdf'], dir);
    await queue.idle();
    expect(delivered).toEqual([]);
    queue.start();
    queue.add(['photos', '--nope'], dir);
    await queue.idle();
    expect(delivered).toEqual([[path.join(dir, 'report.pdf')], [path.join(dir, 'photos')]]);
  });
  it('a failing delivery is reported and does not stop the next', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const queue = new OpenPathQueue({
      ...fsDeps,
      deliver: async () => {
        if (++calls === 1) throw new Error('disk full');
      },
      onError: (err) => errors.push(err),
    });
    queue.start();
    queue.add(['report.pdf'], dir);
    queue.add(['photos'], dir);
    await queue.idle();
    expect(calls).toBe(2);
    expect(errors).toHaveLength(1);
  });
});
