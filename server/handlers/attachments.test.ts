// POST /api/upload and /api/upload/extract (spec-notes 4.3, 4.4) over real sockets, asserting the bytes on disk.
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { RAR_REFUSED } from '../attachments/attach-kind.js';
import { yazlZip } from '../archive/testing/fixtures.js';
import { buildPng } from '../../e2e/helpers/png.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, startTestServer, TEST_TOKEN, type TestServer, postMultipart, TEST_BOUNDARY, type Part } from '../testing/harness.js';
import { blockWrites } from '../testing/stored-session.js';
import { Db } from '../store/db/connection.js';
import { SESSION_DB_FILE } from '../store/sessions.js';
import { storedFileMode } from '../store/file-mode.js';

const BOUNDARY = TEST_BOUNDARY;
let srv: TestServer;
let session: string;

beforeAll(async () => {
  srv = await startTestServer({ maxUploadBytes: 8 * 1024 * 1024 });
  session = await srv.newSession();
});
afterAll(async () => {
  await srv.stop();
});

const post = (pathname: string, parts: Part[], headers: Record<string, string> = {}) => postMultipart(srv, pathname, parts, headers);

const attachDir = (id = session) => path.join(srv.stateDir, 'attachments', id);

async function stagingEmpty(): Promise<void> {
  expect(await fs.readdir(path.join(srv.stateDir, 'staging'))).toEqual([]);
}


describe('4.3 attachment upload', () => {
  it('stores the file with the result shape and the exact bytes', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 255]);
    const { status, body } = await post('/api/upload', [
      { name: 'session_id', content: session },
      { name: 'file', filename: 'photo.png', content: bytes, type: 'image/png' },
    ]);
    expect(status).toBe(200);
    // Named .png, but not a PNG's signature: no image (issue 35: the bytes decide, never the name).
    expect(body).toEqual({ filename: 'photo.png', path: path.join(attachDir(), 'photo.png'), size: 9, mime: 'image/png', is_image: false });
    expect(await fs.readFile(body.path)).toEqual(bytes);
    await stagingEmpty();
  });

  it('says a real PNG is an image whatever its name, and text named .png is not (issue 35)', async () => {
    const png = buildPng(4, 4, () => [200, 30, 30]);
    const up = async (filename: string, content: Buffer) => (await post('/api/upload', [{ name: 'session_id', content: session }, { name: 'file', filename, content }])).body;
    expect(await up('scan', png)).toMatchObject({ filename: 'scan', is_image: true });
    expect(await up('shot.dat', png)).toMatchObject({ filename: 'shot.dat', is_image: true });
    expect(await up('notes.png', Buffer.from('plain text, not a picture\n'))).toMatchObject({ filename: 'notes.png', mime: 'image/png', is_image: false });
  });

  it('removes the stored file when the session cannot record it (nothing half-done)', async () => {
    const id = await srv.newSession();
    // A trigger that refuses every new attachment row makes the session's next write fail inside its transaction.
    await blockWrites(srv.stateDir, 'attachments', id);
    const { status, body } = await post('/api/upload', [
      { name: 'session_id', content: id },
      { name: 'file', filename: 'orphan.txt', content: 'never recorded' },
    ]);
    expect(status).toBe(500);
    expect(body).toEqual({ error: 'Upload failed' });
    expect(await fs.readdir(attachDir(id)).catch(() => [])).toEqual([]);
    const shown = (await (await srv.api(`/api/session?session_id=${id}`)).json()) as { session: { attachments: unknown[] } };
    expect(shown.session.attachments).toEqual([]);
    await stagingEmpty();
  });

  it('stores a long non-Latin name shortened to fit the file system, not refused as traversal', async () => {
    const long = '文'.repeat(150) + '.txt';
    const res = await post('/api/upload', [{ name: 'session_id', content: session }, { name: 'file', filename: long, content: 'wide' }]);
    expect(res.status).toBe(200);
    expect(res.body.filename).toBe('文'.repeat(78) + '.txt');
    expect(await fs.readFile(res.body.path, 'utf8')).toBe('wide');
    const ws = await post('/api/workspace/upload', [{ name: 'session_id', content: session }, { name: 'file', filename: long, content: 'wide' }]);
    expect(ws.status).toBe(200);
    expect(ws.body.filename).toBe('文'.repeat(78) + '.txt');
  });

  it('answers No filename in upload for a file part with filename=""', async () => {
    const { status, body } = await post('/api/upload', [
      { name: 'session_id', content: session },
      { name: 'file', filename: '', type: 'image/png', content: 'png bytes' },
    ]);
    expect(status).toBe(400);
    expect(body).toEqual({ error: 'No filename in upload' });
  });

  it('accepts the file part before session_id and keeps UTF-8 names', async () => {
    const { status, body } = await post('/api/upload', [
      { name: 'file', filename: 'héllo wörld_ß-１.txt', content: 'bonjour' },
      { name: 'session_id', content: session },
    ]);
    expect(status).toBe(200);
    expect(body).toMatchObject({ filename: 'héllo_wörld_ß-１.txt', mime: 'text/plain', is_image: false, size: 7 });
    expect(await fs.readFile(path.join(attachDir(), 'héllo_wörld_ß-１.txt'), 'utf8')).toBe('bonjour');
  });

  it('de-duplicates names with -1, -2', async () => {
    const names = [];
    for (let i = 0; i < 3; i++) {
      const { body } = await post('/api/upload', [{ name: 'session_id', content: session }, { name: 'file', filename: 'notes.md', content: `v${i}` }]);
      names.push(body.filename);
    }
    expect(names).toEqual(['notes.md', 'notes-1.md', 'notes-2.md']);
    expect(await fs.readFile(path.join(attachDir(), 'notes-2.md'), 'utf8')).toBe('v2');
  });

  it('gives 64 concurrent uploads of one name 64 distinct files with the right contents', async () => {
    const id = await srv.newSession();
    const results = await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        post('/api/upload', [{ name: 'session_id', content: id }, { name: 'file', filename: 'same.txt', content: `content ${i}` }]),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const files = await fs.readdir(attachDir(id));
    expect(files).toHaveLength(64);
    const contents = new Set(await Promise.all(files.map((f) => fs.readFile(path.join(attachDir(id), f), 'utf8'))));
    expect(contents).toEqual(new Set(Array.from({ length: 64 }, (_, i) => `content ${i}`)));
    for (const r of results) expect(await fs.readFile(r.body.path, 'utf8')).toBe(`content ${results.indexOf(r)}`);
  });

  it.each([
    [[{ name: 'session_id', content: 'x' }], 400, 'No file field in request'],
    [[{ name: 'file', filename: '', content: 'x' }], 400, 'No filename in upload'],
    [[{ name: 'session_id', content: '000000000000' }, { name: 'file', filename: 'a.txt', content: 'x' }], 404, 'Session not found'],
    [[{ name: 'file', filename: 'a.txt', content: 'x' }], 404, 'Session not found'],
  ] as [Part[], number, string][])('%#: %s → %s', async (parts, status, error) => {
    const res = await post('/api/upload', parts);
    expect(res).toEqual({ status, body: { error } });
    await stagingEmpty();
  });

  it('rejects a dots-only name and hides other profiles’ sessions', async () => {
    expect(await post('/api/upload', [{ name: 'session_id', content: session }, { name: 'file', filename: '..', content: 'x' }])).toEqual({
      status: 400,
      body: { error: 'Invalid filename' },
    });
    const work = await srv.newSession({ profile: 'work' });
    expect(await post('/api/upload', [{ name: 'session_id', content: work }, { name: 'file', filename: 'a.txt', content: 'x' }])).toEqual({
      status: 404,
      body: { error: 'Session not found' },
    });
  });

  it('sanitizes a path in the name to its last component', async () => {
    const { body } = await post('/api/upload', [{ name: 'session_id', content: session }, { name: 'file', filename: '../../../etc/cron.d/evil', content: 'x' }]);
    expect(body.path).toBe(path.join(attachDir(), 'evil'));
  });

  it('never follows a symlink planted at the destination name', async () => {
    const id = await srv.newSession();
    await fs.mkdir(attachDir(id), { recursive: true });
    const victim = path.join(srv.tmp, 'victim.txt');
    await fs.writeFile(victim, 'original');
    await fs.symlink(victim, path.join(attachDir(id), 'link.txt'));
    const { status, body } = await post('/api/upload', [{ name: 'session_id', content: id }, { name: 'file', filename: 'link.txt', content: 'attack' }]);
    expect(status).toBe(200);
    expect(body.filename).toBe('link-1.txt');
    expect(await fs.readFile(victim, 'utf8')).toBe('original');
  });

  it('says so when all 999 duplicate names are taken', async () => {
    const id = await srv.newSession();
    await fs.mkdir(attachDir(id), { recursive: true });
    await fs.writeFile(path.join(attachDir(id), 'full.txt'), '');
    for (let n = 1; n <= 999; n++) await fs.writeFile(path.join(attachDir(id), `full-${n}.txt`), '');
    expect(await post('/api/upload', [{ name: 'session_id', content: id }, { name: 'file', filename: 'full.txt', content: 'x' }])).toEqual({
      status: 400,
      body: { error: 'Too many uploads with the same filename' },
    });
    await stagingEmpty();
  });

  it('honours SATCHEL_WEBUI_ATTACHMENT_DIR (blank ignored)', async () => {
    const custom = path.join(srv.tmp, 'custom-attachments');
    process.env.SATCHEL_WEBUI_ATTACHMENT_DIR = custom;
    try {
      const { body } = await post('/api/upload', [{ name: 'session_id', content: session }, { name: 'file', filename: 'c.txt', content: 'c' }]);
      expect(body.path).toBe(path.join(custom, session, 'c.txt'));
      process.env.SATCHEL_WEBUI_ATTACHMENT_DIR = '   ';
      const blank = await post('/api/upload', [{ name: 'session_id', content: session }, { name: 'file', filename: 'c.txt', content: 'c' }]);
      expect(blank.body.path).toBe(path.join(attachDir(), 'c.txt'));
    } finally {
      delete process.env.SATCHEL_WEBUI_ATTACHMENT_DIR;
    }
  });

  it('leaves no partial or staged file when clients disconnect mid-upload, and keeps answering', async () => {
    const id = await srv.newSession();
    const full = multipartBody(BOUNDARY, [{ name: 'session_id', content: id }, { name: 'file', filename: 'cut.bin', content: Buffer.alloc(256 * 1024, 7) }]);
    const head = [
      'POST /api/upload HTTP/1.1',
      `Host: 127.0.0.1:${srv.port}`,
      `Authorization: Bearer ${TEST_TOKEN}`,
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
      `Content-Length: ${full.length}`,
    ].join('\r\n') + '\r\n\r\n';
    for (let i = 0; i < 200; i++) {
      const cut = 1 + Math.floor(Math.random() * (full.length - 2));
      await new Promise<void>((resolve) => {
        const socket = net.connect(srv.port, '127.0.0.1', () => {
          socket.write(head);
          socket.write(full.subarray(0, cut), () => setImmediate(() => socket.destroy()));
        });
        socket.on('close', () => resolve());
        socket.on('error', () => {});
      });
    }
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (await fs.readdir(path.join(srv.stateDir, 'staging'))).length > 0) await new Promise((r) => setTimeout(r, 50));
    await stagingEmpty();
    expect(await fs.readdir(attachDir(id)).catch(() => [])).toEqual([]);
    expect((await fetch(`${srv.origin}/health`)).status).toBe(200);
  });
});

describe('4.4 upload and extract', () => {
  it('extracts a zip into a directory named after the stem, files relative to the session directory', async () => {
    const zip = await yazlZip({ 'readme.txt': 'hello', 'docs/guide.md': '# Guide' });
    const { status, body } = await post('/api/upload/extract', [{ name: 'session_id', content: session }, { name: 'file', filename: 'bundle.zip', content: zip }]);
    expect(status).toBe(200);
    expect({ ...body, files: [...body.files].sort() }).toEqual({ ok: true, extracted: 2, files: ['bundle/docs/guide.md', 'bundle/readme.txt'], dest: path.join(attachDir(), 'bundle'), skipped: [] });
    expect(await fs.readFile(path.join(attachDir(), 'bundle', 'docs', 'guide.md'), 'utf8')).toBe('# Guide');
    const again = await post('/api/upload/extract', [{ name: 'session_id', content: session }, { name: 'file', filename: 'bundle.zip', content: zip }]);
    expect(again.body.dest).toMatch(/\/bundle_\d{3}$/);
    await stagingEmpty();
  });

  it('refuses unsupported suffixes and answers 500 for a corrupt archive, leaving nothing', async () => {
    expect(await post('/api/upload/extract', [{ name: 'session_id', content: session }, { name: 'file', filename: 'x.rar', content: 'x' }])).toEqual({
      status: 400,
      body: { error: 'Unsupported archive format: x.rar', hint: RAR_REFUSED },
    });
    const res = await post('/api/upload/extract', [{ name: 'session_id', content: session }, { name: 'file', filename: 'broken.zip', content: 'not a zip at all' }]);
    expect(res).toEqual({ status: 500, body: { error: 'Archive extraction failed' } });
    await expect(fs.stat(path.join(attachDir(), 'broken'))).rejects.toThrow();
    await stagingEmpty();
  });
});

describe('what an upload leaves besides its file (issue 37, finding 5)', () => {
  const pendingMarks = async (id: string): Promise<number[]> => {
    const db = await Db.openReadOnly(path.join(srv.stateDir, SESSION_DB_FILE));
    try {
      return (await db.all<{ position: number }>('SELECT position FROM attachment_text_pending WHERE session_id = ? ORDER BY position', [id])).map((r) => r.position);
    } finally {
      await db.close();
    }
  };

  it('a file with no text to index now (binary, image) leaves no mark for the background pass: settled in its own write', async () => {
    const id = await srv.newSession();
    const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 2654435761) & 0xff));
    const ups = await Promise.all([
      post('/api/upload', [{ name: 'session_id', content: id }, { name: 'file', filename: 'blob.bin', content: binary }]),
      post('/api/upload', [{ name: 'session_id', content: id }, { name: 'file', filename: 'pixel.png', content: buildPng(2, 2, () => [0, 0, 0]), type: 'image/png' }]),
      post('/api/upload', [{ name: 'session_id', content: id }, { name: 'file', filename: 'notes.txt', content: 'plain words to find' }]),
    ]);
    expect(ups.map((u) => u.status)).toEqual([200, 200, 200]);
    expect(ups[1]!.body.is_image).toBe(true);
    // Right after the answers, before the background pass (every 2 s) could have come by.
    expect(await pendingMarks(id)).toEqual([]);
  });

  it('the stored file has the stored mode (0644 under the umask), set as it was staged', async () => {
    const { status, body } = await post('/api/upload', [{ name: 'session_id', content: session }, { name: 'file', filename: 'mode.bin', content: 'm' }]);
    expect(status).toBe(200);
    expect((await fs.stat(body.path)).mode & 0o777).toBe(storedFileMode());
    await stagingEmpty();
  });
});
