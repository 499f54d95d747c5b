// GET /api/attachment/folder: an extracted archive's files, relative to its folder, with their sizes, each one
// then previewable by `folder/inner/path`; bounded in files listed and entries walked; the attachment rules
// (no escape, nothing of another session, hidden names and credential stores never) and no symlink listed or
// followed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postMultipart, startTestServer, type TestServer } from '../testing/harness.js';
import { MAX_FOLDER_ENTRIES_WALKED, MAX_FOLDER_FILES_LISTED } from './attachment-folder.js';

let srv: TestServer;
let id: string;
let folder: string;
beforeAll(async () => {
  srv = await startTestServer();
  id = await srv.newSession();
  // A tree as bsdtar makes it: nested folders, names that sort apart from their creation order.
  const made = path.join(srv.tmp, 'made');
  await fs.mkdir(path.join(made, 'photos', 'lisbon'), { recursive: true });
  await fs.writeFile(path.join(made, 'photos', 'lisbon', 'tram.txt'), 'yellow tram');
  await fs.writeFile(path.join(made, 'photos', 'b.txt'), 'bb');
  await fs.writeFile(path.join(made, 'itinerary.txt'), 'Day 1: arrive');
  await fs.writeFile(path.join(made, 'Zebra.txt'), 'z');
  execFileSync('bsdtar', ['-czf', path.join(srv.tmp, 'trip.tar.gz'), '-C', made, '.']);
  const x = await postMultipart(srv, '/api/upload/extract', [
    { name: 'session_id', content: id },
    { name: 'file', filename: 'trip.tar.gz', content: await fs.readFile(path.join(srv.tmp, 'trip.tar.gz')) },
  ]);
  expect(x.status).toBe(200);
  folder = path.basename(x.body.dest as string);
});
afterAll(async () => {
  await srv.stop();
});

const list = async (name: string, session = id) => {
  const res = await srv.api(`/api/attachment/folder?${new URLSearchParams({ session_id: session, name })}`);
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
};

describe('GET /api/attachment/folder', () => {
  it('lists an extracted archive’s files relative to its folder, depth first, with their sizes; each previews', async () => {
    const res = await list(folder);
    expect(res).toEqual({
      status: 200,
      body: {
        name: folder,
        files: [
          { path: 'Zebra.txt', size: 1 },
          { path: 'itinerary.txt', size: 13 },
          { path: 'photos/b.txt', size: 2 },
          { path: 'photos/lisbon/tram.txt', size: 11 },
        ],
        total: 4,
        complete: true,
      },
    });
    const inner = await srv.api(`/api/attachment/preview?${new URLSearchParams({ session_id: id, name: `${folder}/photos/lisbon/tram.txt` })}`);
    expect(await inner.json()).toMatchObject({ kind: 'text', text: 'yellow tram' });
    // A folder inside lists from there.
    expect((await list(`${folder}/photos`)).body).toMatchObject({ name: `${folder}/photos`, total: 2, files: [{ path: 'b.txt' }, { path: 'lisbon/tram.txt' }] });
  });

  it('neither lists nor follows a symlink, and leaves hidden names and credential stores out', async () => {
    const dir = path.join(srv.stateDir, 'attachments', id, 'linked');
    await fs.mkdir(path.join(dir, '.ssh'), { recursive: true });
    await fs.writeFile(path.join(dir, '.ssh', 'id_ed25519'), 'key');
    await fs.writeFile(path.join(dir, '.env'), 'SECRET=1');
    await fs.writeFile(path.join(dir, 'seen.txt'), 'ok');
    const outside = path.join(srv.tmp, 'outside');
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'private.txt'), 'not yours');
    await fs.symlink(outside, path.join(dir, 'out-dir'));
    await fs.symlink(path.join(outside, 'private.txt'), path.join(dir, 'out-file.txt'));
    await fs.symlink(path.join(dir, 'seen.txt'), path.join(dir, 'in-file.txt'));
    expect((await list('linked')).body).toEqual({ name: 'linked', files: [{ path: 'seen.txt', size: 2 }], total: 1, complete: true });
    expect((await list('linked/out-dir')).status).toBe(403);
  });

  it('refuses what is not a folder of this session', async () => {
    const other = await srv.newSession();
    expect(await list(folder, other)).toEqual({ status: 404, body: { error: 'Attachment not found' } });
    expect((await list(`../${id}/${folder}`, other)).status).toBe(403);
    expect((await list(path.join(srv.stateDir, 'attachments', id, folder))).status).toBe(404);
    expect(await list(`${folder}/itinerary.txt`)).toEqual({ status: 400, body: { error: 'Not a folder' } });
    expect((await list('')).status).toBe(404);
    expect((await list('.')).status).toBe(404);
    expect((await list('missing')).status).toBe(404);
    expect((await list(folder, 'ffffffffffff')).status).toBe(404);
  });

  it('names at most MAX_FOLDER_FILES_LISTED files and counts the rest, within MAX_FOLDER_ENTRIES_WALKED entries', async () => {
    const dir = path.join(srv.stateDir, 'attachments', id, 'many');
    await fs.mkdir(dir);
    const names = Array.from({ length: MAX_FOLDER_FILES_LISTED + 5 }, (_, i) => `f${String(i).padStart(5, '0')}.txt`);
    await Promise.all(names.map((n) => fs.writeFile(path.join(dir, n), 'x')));
    const some = await list('many');
    expect(some.body.files).toHaveLength(MAX_FOLDER_FILES_LISTED);
    expect(some.body.files[0]).toEqual({ path: names[0], size: 1 });
    expect(some.body).toMatchObject({ total: MAX_FOLDER_FILES_LISTED + 5, complete: true });

    // Past the walk's bound the total is "at least": the answer stops counting rather than reading on.
    const huge = path.join(srv.stateDir, 'attachments', id, 'huge');
    await fs.mkdir(huge);
    for (let i = 0; i <= MAX_FOLDER_ENTRIES_WALKED; i += 1000) {
      await Promise.all(Array.from({ length: Math.min(1000, MAX_FOLDER_ENTRIES_WALKED + 1 - i) }, (_, j) => fs.writeFile(path.join(huge, `h${i + j}`), '')));
    }
    const lots = await list('huge');
    expect(lots.body).toMatchObject({ total: MAX_FOLDER_ENTRIES_WALKED, complete: false });
    expect(lots.body.files).toHaveLength(MAX_FOLDER_FILES_LISTED);
  }, 60_000);
});
