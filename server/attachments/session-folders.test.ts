// The attachment folder kept open between uploads to one conversation (session-folders.ts): held while uploads
// come, closed when the conversation is deleted and at the server's stop, bounded, and never used again once the
// folder is moved away, swapped for a symlink or removed: the next upload walks from the root again.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anchorMode } from '../store/anchored.js';
import { postMultipart, startTestServer, waitUntil, type TestServer } from '../testing/harness.js';
import { keptFolderCount, leaseSessionFolder, MAX_KEPT_FOLDERS } from './session-folders.js';

// The kept folder is Linux's: elsewhere every upload walks, and there is nothing kept to test.
const linux = process.platform === 'linux';
const GRACE_MS = 200;
let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer({ sessionDeleteGraceMs: GRACE_MS });
});
afterAll(async () => {
  await srv.stop();
});

const folderOf = (id: string) => path.join(srv.stateDir, 'attachments', id);

/** How many of this process's descriptors hold `dir` (as the kernel names it now). */
async function heldOpen(dir: string): Promise<number> {
  const real = await fs.realpath(dir).catch(() => dir);
  let n = 0;
  for (const fd of await fs.readdir('/proc/self/fd')) {
    const target = await fs.readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target === real || target === `${real} (deleted)`) n++;
  }
  return n;
}

async function upload(id: string, filename: string, content: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return postMultipart(srv, '/api/upload', [
    { name: 'session_id', content: id },
    { name: 'file', filename, content },
  ]) as Promise<{ status: number; body: Record<string, unknown> }>;
}

describe.skipIf(!linux)('a conversation\'s attachment folder kept open between uploads', () => {
  it('is held after an upload, used by the next ones, and closed when the conversation is deleted', async () => {
    expect(await anchorMode()).toBe('proc');
    const id = await srv.newSession();
    expect((await upload(id, 'one.txt', 'first')).status).toBe(200);
    // Held by exactly one descriptor however many uploads came: one walk, not one per upload.
    expect(await heldOpen(folderOf(id))).toBe(1);
    const more = await Promise.all(Array.from({ length: 8 }, (_, i) => upload(id, `more-${i}.bin`, `bytes ${i}`)));
    expect(more.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(await heldOpen(folderOf(id))).toBe(1);
    expect((await fs.readdir(folderOf(id))).sort()).toEqual(['more-0.bin', 'more-1.bin', 'more-2.bin', 'more-3.bin', 'more-4.bin', 'more-5.bin', 'more-6.bin', 'more-7.bin', 'one.txt']);

    expect((await srv.json('/api/session/delete', { session_id: id })).status).toBe(200);
    await waitUntil(async () => !(await fs.lstat(folderOf(id)).then(() => true, () => false)), 'the purge removes the folder');
    expect(await heldOpen(folderOf(id))).toBe(0);
  });

  it('a folder moved out of the root and replaced by a symlink to it is not used again: nothing lands outside', async () => {
    const id = await srv.newSession();
    expect((await upload(id, 'before.txt', 'inside')).status).toBe(200);
    expect(await heldOpen(folderOf(id))).toBe(1);
    const outside = path.join(await fs.realpath(srv.tmp), `moved-${id}`);
    await fs.rename(folderOf(id), outside);
    await fs.symlink(outside, folderOf(id));

    const after = await upload(id, 'after.txt', 'must not land outside');
    // The walk from the root finds the symlink leading outside: refused, as an upload into a planted link always was.
    expect(after).toEqual({ status: 400, body: { error: 'Invalid upload destination' } });
    expect(await fs.readdir(outside)).toEqual(['before.txt']);
    // The moved folder is let go of (once no upload uses it).
    expect(await heldOpen(outside)).toBe(0);
    expect(await fs.readdir(path.join(srv.stateDir, 'staging'))).toEqual([]);
  });

  it('a folder removed behind the server\'s back is made again by the next upload', async () => {
    const id = await srv.newSession();
    expect((await upload(id, 'a.txt', 'a')).status).toBe(200);
    await fs.rm(folderOf(id), { recursive: true });
    const again = await upload(id, 'b.txt', 'b');
    expect(again.status).toBe(200);
    expect(again.body.path).toBe(path.join(folderOf(id), 'b.txt'));
    expect(await fs.readFile(path.join(folderOf(id), 'b.txt'), 'utf8')).toBe('b');
    expect(await heldOpen(folderOf(id))).toBe(1);
  });

  it(`holds at most ${MAX_KEPT_FOLDERS} folders, closing the least recently used idle one`, async () => {
    const ids = await Promise.all(Array.from({ length: MAX_KEPT_FOLDERS + 4 }, () => srv.newSession()));
    for (const id of ids) {
      const lease = await leaseSessionFolder(srv.stateDir, id);
      await lease.release();
    }
    expect(keptFolderCount()).toBeLessThanOrEqual(MAX_KEPT_FOLDERS);
    // The oldest went, the newest stay.
    expect(await heldOpen(folderOf(ids[0]!))).toBe(0);
    expect(await heldOpen(folderOf(ids.at(-1)!))).toBe(1);
  });

  it('closes every kept folder when the server stops', async () => {
    const other = await startTestServer();
    let folder = '';
    try {
      const id = await other.newSession();
      const res = await postMultipart(other, '/api/upload', [{ name: 'session_id', content: id }, { name: 'file', filename: 'x.txt', content: 'x' }]);
      expect(res.status).toBe(200);
      folder = path.join(await fs.realpath(path.join(other.stateDir, 'attachments')), id);
      expect(await heldOpen(folder)).toBe(1);
    } finally {
      await other.stop();
    }
    expect(await heldOpen(folder)).toBe(0);
  });
});
