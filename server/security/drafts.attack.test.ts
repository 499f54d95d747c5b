// Attacks on drafts (GET/PUT /api/session/draft) and DELETE /api/session/attachment: deleting a file outside the
// session's attachment folder, another session's or profile's upload, a sent one, or (through a crafted draft
// chip whose extraction folder names something else) a sibling file the chip does not own; oversized drafts.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_DRAFT_ATTACHMENTS, MAX_DRAFT_TEXT_CHARS } from '../drafts/store.js';
import { postMultipart } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const srv = testServerForFile();

async function upload(id: string, filename: string, content: string | Buffer = 'x'): Promise<Json> {
  const res = await postMultipart(srv, '/api/upload', [
    { name: 'session_id', content: id },
    { name: 'file', filename, content },
  ]);
  expect(res.status).toBe(200);
  return res.body;
}
const put = (body: unknown) => srv.api('/api/session/draft', { method: 'PUT', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
const del = (id: string, p: string) => srv.api(`/api/session/attachment?${new URLSearchParams({ session_id: id, path: p })}`, { method: 'DELETE' });
const exists = (p: string) => fs.lstat(p).then(() => true, () => false);

describe('DELETE /api/session/attachment', () => {
  it("never deletes another session's upload, another profile's, or a path outside", async () => {
    const mine = await srv.newSession();
    const theirs = await srv.newSession();
    const work = await srv.newSession({ profile: 'work' });
    const theirFile = (await upload(theirs, 'theirs.txt')).path as string;
    const outside = path.join(srv.tmp, 'outside.txt');
    await fs.writeFile(outside, 'keep');
    const attachDir = path.dirname(theirFile);
    for (const p of [theirFile, outside, `${attachDir}/../${path.basename(attachDir)}/theirs.txt`, path.join(srv.stateDir, 'settings.json')]) {
      const res = await del(mine, p);
      expect(res.status, p).toBe(404);
    }
    expect((await del(work, theirFile)).status).toBe(404);
    expect(await exists(theirFile)).toBe(true);
    expect(await exists(outside)).toBe(true);
  });

  it('a sent upload is kept (409), and so is the extraction folder a message refers to', async () => {
    const id = await srv.newSession();
    const a = await upload(id, 'sent.txt');
    const sent = await srv.json('/api/session/message', { session_id: id, text: 'here', attachments: [a] });
    expect(sent.status).toBe(200);
    expect((await del(id, a.path)).status).toBe(409);
    expect(await exists(a.path)).toBe(true);
  });

  it('a draft chip whose "extraction folder" names a sibling file deletes only its own upload', async () => {
    const id = await srv.newSession();
    const victim = await upload(id, 'victim.txt', 'keep me');
    const chip = await upload(id, 'chip.txt');
    // The sibling is directly inside the session's folder, so it passes the folder check as a string.
    const res = await put({ session_id: id, text: '', attachments: [{ path: chip.path, extract: { dest: victim.path, extracted: 0, files: [] } }] });
    expect([200, 400]).toContain(res.status);
    if (res.status === 200) expect((await del(id, chip.path)).status).toBe(200);
    expect(await exists(chip.path)).toBe(res.status !== 200);
    // The victim is still there, with its record.
    expect(await fs.readFile(victim.path, 'utf8')).toBe('keep me');
    const session = (await (await srv.api(`/api/session?session_id=${id}`)).json()) as Json;
    expect(session.session.attachments.map((a: Json) => a.filename)).toContain('victim.txt');
  });

  it('a planted symlink named as an extraction folder is removed itself, never followed', async () => {
    const id = await srv.newSession();
    const chip = await upload(id, 'chip.txt');
    const target = path.join(srv.tmp, 'link-target');
    await fs.mkdir(target);
    await fs.writeFile(path.join(target, 'precious.txt'), 'keep');
    const link = path.join(path.dirname(chip.path), 'planted');
    await fs.symlink(target, link);
    const res = await put({ session_id: id, text: '', attachments: [{ path: chip.path, extract: { dest: link, extracted: 1, files: ['planted/precious.txt'] } }] });
    if (res.status === 200) await del(id, chip.path);
    expect(await fs.readFile(path.join(target, 'precious.txt'), 'utf8')).toBe('keep');
  });
});

describe('PUT /api/session/draft', () => {
  it("refuses another session's folder, a path outside, an unnormalized path and an unknown upload", async () => {
    const id = await srv.newSession();
    const other = await srv.newSession();
    const chip = await upload(id, 'chip.txt');
    const otherChip = await upload(other, 'other.txt');
    const dir = path.dirname(chip.path);
    for (const dest of [path.dirname(otherChip.path), path.join(dir, '..', other), `${dir}/./x`, `${dir}/x/`, '/tmp', 'x', `${dir}/x/../../${other}`]) {
      const res = await put({ session_id: id, attachments: [{ path: chip.path, extract: { dest, extracted: 0, files: [] } }] });
      expect(res.status, dest).toBe(400);
    }
    expect((await put({ session_id: id, attachments: [{ path: otherChip.path }] })).status).toBe(400);
  });

  it('limits text and chips, answering 400 rather than storing them', async () => {
    const id = await srv.newSession();
    expect((await put({ session_id: id, text: 'x'.repeat(MAX_DRAFT_TEXT_CHARS + 1) })).status).toBe(400);
    const chip = await upload(id, 'c.txt');
    expect((await put({ session_id: id, attachments: Array.from({ length: MAX_DRAFT_ATTACHMENTS + 1 }, () => ({ path: chip.path })) })).status).toBe(400);
    expect((await put({ session_id: id, text: 12 })).status).toBe(400);
    expect((await put({ session_id: id, attachments: 'nope' })).status).toBe(400);
  });

  it('free text in a draft leaves redacted', async () => {
    const id = await srv.newSession();
    const secret = 'AKIAIOSFODNN7EXAMPLE';
    const res = await put({ session_id: id, text: `key ${secret}` });
    expect(await res.text()).not.toContain(secret);
    expect(await (await srv.api(`/api/session/draft?session_id=${id}`)).text()).not.toContain(secret);
  });
});
