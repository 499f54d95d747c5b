// Attacks on quick capture's send (POST /api/capture/send), which copies staged uploads from one conversation
// into another and deletes the originals: it must never copy a file the staging conversation does not own (a
// path outside, another conversation's or profile's upload, a symlink planted in the attachment folder), never
// delete an upload a sent message refers to, and never be sent from another site.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { postMultipart } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';
import { storedSession } from '../testing/stored-session.js';

const srv = testServerForFile();

async function upload(id: string, filename: string, content = 'x'): Promise<{ path: string; filename: string }> {
  const res = await postMultipart(srv, '/api/upload', [
    { name: 'session_id', content: id },
    { name: 'file', filename, content },
  ]);
  expect(res.status).toBe(200);
  return res.body as { path: string; filename: string };
}
const send = (body: unknown) => srv.json('/api/capture/send', body);
const messages = async (id: string) => (await storedSession(srv.stateDir, id))!.messages;
const folder = (id: string) => path.join(srv.stateDir, 'attachments', id);
const names = async (id: string) => (await fs.readdir(folder(id)).catch(() => [] as string[])).filter((n) => !n.startsWith('.')).sort();

describe('POST /api/capture/send', () => {
  it("copies only the staging conversation's own uploads: no path outside, no other conversation's or profile's", async () => {
    const staging = await srv.newSession();
    const target = await srv.newSession();
    const other = await srv.newSession();
    const work = await srv.newSession({ profile: 'work' });
    const theirs = await upload(other, 'theirs.txt', 'not yours');
    const outside = path.join(srv.tmp, 'secret.txt');
    await fs.writeFile(outside, 'secret');
    for (const p of [theirs.path, outside, `${folder(staging)}/../${other}/theirs.txt`, path.join(srv.stateDir, 'settings.json')]) {
      const res = await send({ destination: 'current', session_id: target, staging_session_id: staging, text: 'x', attachments: [p] });
      expect(await res.json(), p).toEqual({ error: 'Unknown attachment' });
    }
    // Another profile's conversation as the staging one is answered as missing.
    const res = await send({ destination: 'current', session_id: target, staging_session_id: work, text: 'x', attachments: [] });
    expect(res.status).toBe(404);
    expect(await names(target)).toEqual([]);
    expect(await messages(target)).toEqual([]);
    expect(await fs.readFile(theirs.path, 'utf8')).toBe('not yours');
  });

  it('a staged upload replaced by a symlink is not followed: nothing copied, no message', async () => {
    const staging = await srv.newSession();
    const target = await srv.newSession();
    const staged = await upload(staging, 'notes.txt', 'mine');
    const outside = path.join(srv.tmp, 'private.key');
    await fs.writeFile(outside, 'PRIVATE KEY');
    await fs.rm(staged.path);
    await fs.symlink(outside, staged.path);
    const res = await send({ destination: 'current', session_id: target, staging_session_id: staging, text: 'x', attachments: [staged.path] });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Attachment not found' });
    expect(await names(target)).toEqual([]);
    expect(await messages(target)).toEqual([]);
    expect(await fs.readFile(outside, 'utf8')).toBe('PRIVATE KEY');
  });

  it('an upload a sent message refers to is copied, never deleted from its conversation', async () => {
    const staging = await srv.newSession();
    const target = await srv.newSession();
    const sent = await upload(staging, 'sent.txt', 'sent before');
    expect((await srv.json('/api/session/message', { session_id: staging, text: 'here', attachments: [sent] })).status).toBe(200);
    const res = await send({ destination: 'current', session_id: target, staging_session_id: staging, text: 'again', attachments: [sent.path] });
    expect(res.status).toBe(200);
    expect(await fs.readFile(sent.path, 'utf8')).toBe('sent before');
    expect(await fs.readFile(path.join(folder(target), 'sent.txt'), 'utf8')).toBe('sent before');
  });

  it('is refused from another site, even with the access cookie', async () => {
    const target = await srv.newSession();
    const res = await fetch(`${srv.origin}/api/capture/send`, {
      method: 'POST',
      headers: { Cookie: `satchel_token=${srv.token}`, Authorization: `Bearer ${srv.token}`, Origin: 'https://evil.example', 'Content-Type': 'application/json' },
      body: JSON.stringify({ destination: 'current', session_id: target, text: 'forged' }),
    });
    expect(res.status).toBe(403);
    expect(await messages(target)).toEqual([]);
  });
});
