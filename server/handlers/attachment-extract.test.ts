// POST /api/attachment/extract: an archive the session stored is extracted where POST /api/upload/extract would
// have put it, from the stored file itself (a chip restored from a draft has no bytes in the page). Only an
// upload this session recorded; a symlink in the upload's place is never read through.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { forceAnchorMode, type AnchorMode } from '../store/anchored.js';
import { postMultipart, startTestServer, type TestServer } from '../testing/harness.js';

let srv: TestServer;
let made: string;
beforeAll(async () => {
  srv = await startTestServer();
  made = path.join(srv.tmp, 'made');
  await fs.mkdir(path.join(made, 'report', 'data'), { recursive: true });
  await fs.writeFile(path.join(made, 'report', 'table.csv'), 'region,total\nnorth,12\n');
  await fs.writeFile(path.join(made, 'report', 'data', 'notes.txt'), 'made by real tools');
  // Archives as people make them: zip(1) and GNU tar with xz.
  execFileSync('zip', ['-qr', path.join(srv.tmp, 'report.zip'), 'report'], { cwd: made });
  execFileSync('tar', ['-cJf', path.join(srv.tmp, 'report.tar.xz'), 'report'], { cwd: made });
});
afterAll(async () => {
  await srv.stop();
});
afterEach(() => forceAnchorMode(undefined));

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function upload(sessionId: string, filename: string, content: string | Buffer): Promise<Json> {
  const res = await postMultipart(srv, '/api/upload', [{ name: 'session_id', content: sessionId }, { name: 'file', filename, content }]);
  expect(res.status).toBe(200);
  return res.body;
}

async function extract(body: Record<string, unknown>): Promise<{ status: number; body: Json }> {
  const res = await srv.json('/api/attachment/extract', body);
  return { status: res.status, body: (await res.json()) as Json };
}

const sessionDir = (id: string) => path.join(srv.stateDir, 'attachments', id);

describe('POST /api/attachment/extract', () => {
  for (const mode of ['proc', 'verify'] as AnchorMode[]) {
    it(`extracts a stored zip(1) and GNU tar.xz into a new folder of the session (${mode} mode)`, async () => {
      forceAnchorMode(mode);
      const id = await srv.newSession();
      for (const name of ['report.zip', 'report.tar.xz']) {
        const stored = await upload(id, name, await fs.readFile(path.join(srv.tmp, name)));
        const x = await extract({ session_id: id, path: stored.path });
        expect(x.status).toBe(200);
        expect(x.body).toMatchObject({ ok: true, extracted: 2, skipped: [] });
        expect(path.dirname(x.body.dest)).toBe(sessionDir(id));
        const folder = path.basename(x.body.dest);
        expect([...x.body.files].sort()).toEqual([`${folder}/report/data/notes.txt`, `${folder}/report/table.csv`]);
        expect(await fs.readFile(path.join(x.body.dest, 'report', 'data', 'notes.txt'), 'utf8')).toBe('made by real tools');
        // The stored archive stays, and a draft may keep the extraction with its chip.
        expect((await fs.stat(stored.path)).isFile()).toBe(true);
        const draft = await srv.api('/api/session/draft', {
          method: 'PUT',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ session_id: id, attachments: [{ path: stored.path, extract: { dest: x.body.dest, extracted: 2, files: x.body.files } }] }),
        });
        expect(draft.status).toBe(200);
      }
      // Two folders (report, report_NNN): the second extraction did not land in the first one's folder.
      const folders = (await fs.readdir(sessionDir(id), { withFileTypes: true })).filter((d) => d.isDirectory());
      expect(folders).toHaveLength(2);
      // Nothing of a copy is left in staging.
      expect(await fs.readdir(path.join(srv.stateDir, 'staging'))).toEqual([]);
    });
  }

  it('extracts only an upload this session recorded', async () => {
    const id = await srv.newSession();
    const zip = await fs.readFile(path.join(srv.tmp, 'report.zip'));
    const stored = await upload(id, 'report.zip', zip);
    const other = await srv.newSession();
    const theirs = await upload(other, 'theirs.zip', zip);
    const before = await fs.readdir(sessionDir(id));

    expect(await extract({ session_id: id, path: theirs.path })).toEqual({ status: 400, body: { error: 'Unknown attachment' } });
    expect(await extract({ session_id: id, path: `${sessionDir(id)}/../${id}/report.zip` })).toEqual({ status: 400, body: { error: 'Unknown attachment' } });
    expect(await extract({ session_id: id, path: 'report.zip' })).toEqual({ status: 400, body: { error: 'Unknown attachment' } });
    expect((await extract({ session_id: id })).status).toBe(400);
    expect((await extract({ session_id: 'ffffffffffff', path: stored.path })).status).toBe(404);
    const text = await upload(id, 'notes.txt', 'not an archive');
    expect(await extract({ session_id: id, path: text.path })).toEqual({ status: 400, body: { error: 'Unsupported archive format: notes.txt' } });
    expect((await fs.readdir(sessionDir(id))).sort()).toEqual([...before, 'notes.txt'].sort());
  });

  it('never reads through a symlink put in the upload’s place, and a vanished upload is 404', async () => {
    const id = await srv.newSession();
    const stored = await upload(id, 'report.zip', await fs.readFile(path.join(srv.tmp, 'report.zip')));
    await fs.rm(stored.path);
    expect(await extract({ session_id: id, path: stored.path })).toEqual({ status: 404, body: { error: 'Attachment not found' } });
    await fs.symlink(path.join(srv.tmp, 'report.zip'), stored.path);
    expect(await extract({ session_id: id, path: stored.path })).toEqual({ status: 404, body: { error: 'Attachment not found' } });
    expect(await fs.readdir(sessionDir(id))).toEqual(['report.zip']);
  });
});
