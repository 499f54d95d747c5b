// The watcher's "still being written" check against real processes: a shell holding a file open for writing
// (`exec 3>>file`), one holding it open only to read, and none.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fdinfoWrites, filesOpenForWriting } from './open-writers.js';

const linux = process.platform === 'linux';
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** A shell that opens `file` with `redirect` (e.g. `3>>`) and says so, then waits. */
async function holder(redirect: string, file: string): Promise<ChildProcess> {
  const child = spawn('bash', ['-c', `exec ${redirect}"$1"; echo open; sleep 30`, 'holder', file], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('error', reject);
  });
  return child;
}

describe('fdinfoWrites', () => {
  it('reads the access mode from the octal flags line', () => {
    expect(fdinfoWrites('pos:\t0\nflags:\t0100001\nmnt_id:\t25\n')).toBe(true); // O_WRONLY|O_LARGEFILE
    expect(fdinfoWrites('pos:\t0\nflags:\t02102002\n')).toBe(true); // O_RDWR|O_APPEND…
    expect(fdinfoWrites('pos:\t0\nflags:\t0100000\n')).toBe(false); // O_RDONLY
    expect(fdinfoWrites('garbage')).toBe(false);
  });
});

describe.runIf(linux)('filesOpenForWriting (Linux /proc)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-writers-'));

  it('names a file another process holds open for writing, and not one it only reads', async () => {
    const writing = path.join(dir, 'scan.pdf');
    const reading = path.join(dir, 'notes.txt');
    const idle = path.join(dir, 'done.txt');
    for (const f of [writing, reading, idle]) fs.writeFileSync(f, 'x');
    await holder('3>>', writing);
    await holder('3<', reading);
    expect(await filesOpenForWriting(new Set([writing, reading, idle]))).toEqual(new Set([writing]));
  });

  it('forgets the file once its writer has closed it', async () => {
    const file = path.join(dir, 'copy.bin');
    fs.writeFileSync(file, 'x');
    const child = await holder('3>>', file);
    expect(await filesOpenForWriting(new Set([file]))).toEqual(new Set([file]));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(await filesOpenForWriting(new Set([file]))).toEqual(new Set());
  });
});

describe('filesOpenForWriting when it cannot know', () => {
  it('answers null without /proc (macOS, Windows) and past its deadline', async () => {
    expect(await filesOpenForWriting(new Set(['/x']), { procDir: path.join(os.tmpdir(), 'no-such-proc-dir') })).toBeNull();
    let t = 0;
    if (linux) expect(await filesOpenForWriting(new Set(['/x']), { deadlineMs: 5, now: () => (t += 10) })).toBeNull();
  });
});
