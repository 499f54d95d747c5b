// Deleting a session removes a folder tree: the place where a planted link or a crafted id could make Satchel
// delete what is not its own. The purge must remove links as links (never what they point at), and an id that
// is not a session's names nothing at all.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { postMultipart, waitUntil } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';
import { storedSession, storedSessionIds } from '../testing/stored-session.js';

/** Short so the purge comes within the test; an Undo is not part of these attacks. */
const GRACE_MS = 200;

const srv = testServerForFile({ sessionDeleteGraceMs: GRACE_MS });

const exists = (p: string) => fs.lstat(p).then(() => true, () => false);

async function purged(id: string): Promise<void> {
  await waitUntil(async () => (await storedSession(srv.stateDir, id)) === undefined, `session ${id} purged`);
}

async function withUpload(): Promise<{ id: string; folder: string }> {
  const id = await srv.newSession();
  const up = await postMultipart(srv, '/api/upload', [{ name: 'session_id', content: id }, { name: 'file', filename: 'a.txt', content: 'a' }]);
  expect(up.status).toBe(200);
  return { id, folder: path.dirname(up.body.path as string) };
}

async function victim(name: string): Promise<string> {
  const dir = path.join(srv.workspace, name);
  await fs.mkdir(path.join(dir, 'deep'), { recursive: true });
  await fs.writeFile(path.join(dir, 'deep', 'keep.txt'), 'mine');
  return dir;
}

describe('session delete: what the purge may remove', () => {
  it('removes a link inside the attachment folder as a link, never the workspace it points at', async () => {
    const { id, folder } = await withUpload();
    const target = await victim('linked-inside');
    await fs.symlink(target, path.join(folder, 'to-workspace'));
    await fs.symlink(path.join(target, 'deep', 'keep.txt'), path.join(folder, 'to-file'));
    expect((await srv.json('/api/session/delete', { session_id: id })).status).toBe(200);
    await purged(id);
    expect(await exists(folder)).toBe(false);
    expect(await fs.readFile(path.join(target, 'deep', 'keep.txt'), 'utf8')).toBe('mine');
  });

  it('removes an attachment folder swapped for a link to the workspace as a link', async () => {
    const { id, folder } = await withUpload();
    const target = await victim('swapped');
    await fs.rm(folder, { recursive: true });
    await fs.symlink(target, folder);
    expect((await srv.json('/api/session/delete', { session_id: id })).status).toBe(200);
    await purged(id);
    expect(await exists(folder)).toBe(false);
    expect(await fs.readFile(path.join(target, 'deep', 'keep.txt'), 'utf8')).toBe('mine');
  });

  it.each([['../sessions'], ['..'], ['.'], ['0123456789ab/..'], ['ABCDEF012345'], [123456789012], [['0123456789ab']]])('an id of %j deletes nothing (404)', async (sessionId) => {
    await srv.newSession();
    const before = { stored: await storedSessionIds(srv.stateDir), state: (await fs.readdir(srv.stateDir)).sort() };
    for (const route of ['/api/session/delete', '/api/session/restore']) {
      const res = await srv.json(route, { session_id: sessionId });
      expect(res.status, route).toBe(404);
      expect(await res.json()).toEqual({ error: 'Session not found' });
    }
    expect({ stored: await storedSessionIds(srv.stateDir), state: (await fs.readdir(srv.stateDir)).sort() }).toEqual(before);
  });

  it('keeps serving when a body is not JSON or not an object', async () => {
    for (const body of ['not json', '[]', 'null']) {
      const res = await srv.api('/api/session/delete', { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
      expect(res.status, body).toBe(400);
    }
    expect((await srv.api('/api/sessions')).status).toBe(200);
  });
});
