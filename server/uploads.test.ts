// Integration tests of the upload handlers (4.1, 4.3, 4.4, 4.7) over real sockets, asserting the bytes on disk.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, parseResponses, rawExchange, startTestServer, TEST_TOKEN, type TestServer } from './testing/harness.js';

const BOUNDARY = 'satchelBoundary7MA4YWxk';
let srv: TestServer;
let session: string;

beforeAll(async () => {
  srv = await startTestServer({ maxUploadBytes: 8 * 1024 * 1024 });
  session = await srv.newSession();
});
afterAll(async () => {
  await srv.stop();
});

type Part = Parameters<typeof multipartBody>[1][number];

async function post(pathname: string, parts: Part[], headers: Record<string, string> = {}) {
  const res = await srv.api(pathname, {
    method: 'POST',
    body: new Uint8Array(multipartBody(BOUNDARY, parts)),
    headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, ...headers },
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const attachDir = (id = session) => path.join(srv.stateDir, 'attachments', id);

async function stagingEmpty(): Promise<void> {
  expect(await fs.readdir(path.join(srv.stateDir, 'staging'))).toEqual([]);
}

function zipOf(entries: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(entries)) zip.addBuffer(Buffer.from(content), name);
  zip.end();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

describe('4.1 framing checks, in order, before the body', () => {
  const head = (lines: string[]) => lines.join('\r\n') + '\r\n\r\n';
  const base = () => [`POST /api/upload HTTP/1.1`, `Host: 127.0.0.1:${srv.port}`, `Authorization: Bearer ${TEST_TOKEN}`];

  it('413 with the cap in whole MiB when the declared length is over the cap, and closes', async () => {
    const { text, closed } = await rawExchange(srv.port, head([...base(), 'Content-Type: multipart/form-data; boundary=x', `Content-Length: ${8 * 1024 * 1024 + 1}`]));
    expect(closed).toBe(true);
    const [res] = parseResponses(text);
    expect(res!.status).toBe(413);
    expect(JSON.parse(res!.body)).toEqual({ error: 'File too large (max 8MB)' });
    expect(res!.headers.filter(([n]) => n === 'connection')).toEqual([['connection', 'close']]);
  });

  it('413 comes before the boundary check', async () => {
    const { text } = await rawExchange(srv.port, head([...base(), 'Content-Type: text/plain', `Content-Length: ${9 * 1024 * 1024}`]));
    expect(parseResponses(text)[0]!.status).toBe(413);
  });

  it('400 No boundary, closing only when a body is declared', async () => {
    const withBody = await rawExchange(srv.port, head([...base(), 'Content-Type: multipart/form-data', 'Content-Length: 5']) + 'hello');
    const [a] = parseResponses(withBody.text);
    expect(a!.status).toBe(400);
    expect(JSON.parse(a!.body)).toEqual({ error: 'No boundary in Content-Type' });
    expect(a!.header('connection')).toBe('close');

    const noBody = await rawExchange(
      srv.port,
      head([...base(), 'Content-Type: multipart/form-data', 'Content-Length: 0']) + head([`GET /api/health/agent HTTP/1.1`, `Host: 127.0.0.1`, 'Connection: close']),
    );
    const responses = parseResponses(noBody.text);
    expect(responses.map((r) => r.status)).toEqual([400, 200]);
    expect(responses[0]!.header('connection')).not.toBe('close');
  });

  it('accepts a quoted boundary', async () => {
    const res = await srv.api('/api/upload', {
      method: 'POST',
      body: new Uint8Array(multipartBody(BOUNDARY, [{ name: 'session_id', content: session }, { name: 'file', filename: 'q.txt', content: 'quoted' }])),
      headers: { 'Content-Type': `multipart/form-data; boundary="${BOUNDARY}"` },
    });
    expect(res.status).toBe(200);
  });

  it('400 on a malformed multipart body, nothing staged', async () => {
    const body = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\npartial data without the end`;
    const res = await srv.api('/api/upload', { method: 'POST', body, headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/^Malformed multipart body/);
    await stagingEmpty();
  });
});

describe('4.3 attachment upload', () => {
  it('stores the file with the result shape and the exact bytes', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 255]);
    const { status, body } = await post('/api/upload', [
      { name: 'session_id', content: session },
      { name: 'file', filename: 'photo.png', content: bytes, type: 'image/png' },
    ]);
    expect(status).toBe(200);
    expect(body).toEqual({ filename: 'photo.png', path: path.join(attachDir(), 'photo.png'), size: 9, mime: 'image/png', is_image: true });
    expect(await fs.readFile(body.path)).toEqual(bytes);
    await stagingEmpty();
  });

  it('removes the stored file when the session cannot record it (nothing half-done)', async () => {
    const id = await srv.newSession();
    // A directory where the session file goes makes its next write fail (rename onto a non-empty directory).
    const file = path.join(srv.stateDir, 'sessions', `${id}.json`);
    await fs.rm(file);
    await fs.mkdir(path.join(file, 'blocker'), { recursive: true });
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
    const zip = await zipOf({ 'readme.txt': 'hello', 'docs/guide.md': '# Guide' });
    const { status, body } = await post('/api/upload/extract', [{ name: 'session_id', content: session }, { name: 'file', filename: 'bundle.zip', content: zip }]);
    expect(status).toBe(200);
    expect({ ...body, files: [...body.files].sort() }).toEqual({ ok: true, extracted: 2, files: ['bundle/docs/guide.md', 'bundle/readme.txt'], dest: path.join(attachDir(), 'bundle') });
    expect(await fs.readFile(path.join(attachDir(), 'bundle', 'docs', 'guide.md'), 'utf8')).toBe('# Guide');
    const again = await post('/api/upload/extract', [{ name: 'session_id', content: session }, { name: 'file', filename: 'bundle.zip', content: zip }]);
    expect(again.body.dest).toMatch(/\/bundle_\d{3}$/);
    await stagingEmpty();
  });

  it('refuses unsupported suffixes and answers 500 for a corrupt archive, leaving nothing', async () => {
    expect(await post('/api/upload/extract', [{ name: 'session_id', content: session }, { name: 'file', filename: 'x.rar', content: 'x' }])).toEqual({
      status: 400,
      body: { error: 'Unsupported archive format: x.rar' },
    });
    const res = await post('/api/upload/extract', [{ name: 'session_id', content: session }, { name: 'file', filename: 'broken.zip', content: 'not a zip at all' }]);
    expect(res).toEqual({ status: 500, body: { error: 'Archive extraction failed' } });
    await expect(fs.stat(path.join(attachDir(), 'broken'))).rejects.toThrow();
    await stagingEmpty();
  });
});

describe('4.7 workspace upload', () => {
  let ws: string;
  let id: string;
  beforeAll(async () => {
    id = await srv.newSession();
    ws = await fs.realpath(srv.workspace);
  });

  it('returns one item for one file and {files, count} for several, into a subdirectory', async () => {
    const one = await post('/api/workspace/upload', [{ name: 'session_id', content: id }, { name: 'file', filename: 'a.txt', content: 'A' }]);
    expect(one).toEqual({ status: 200, body: { filename: 'a.txt', path: path.join(ws, 'a.txt'), size: 1, mime: 'text/plain', is_image: false, extracted: false } });
    const many = await post('/api/workspace/upload', [
      { name: 'session_id', content: id },
      { name: 'path', content: 'sub/dir' },
      { name: 'file', filename: 'b.txt', content: 'B' },
      { name: 'file1', filename: '', content: '' },
      { name: 'file2', filename: 'c.png', content: 'C' },
    ]);
    expect(many.status).toBe(200);
    expect(many.body.count).toBe(2);
    expect(many.body.files.map((f: { path: string }) => f.path)).toEqual([path.join(ws, 'sub/dir/b.txt'), path.join(ws, 'sub/dir/c.png')]);
    expect(many.body.files[1].is_image).toBe(true);
    expect(await fs.readFile(path.join(ws, 'sub/dir/c.png'), 'utf8')).toBe('C');
  });

  it.each([['../outside'], ['/etc'], ['a/../../x']])('refuses a target outside the workspace: %s', async (target) => {
    expect(await post('/api/workspace/upload', [{ name: 'session_id', content: id }, { name: 'path', content: target }, { name: 'file', filename: 'x.txt', content: 'x' }])).toEqual({
      status: 403,
      body: { error: 'Upload target escapes workspace' },
    });
  });

  it('refuses a target reached through a symlink out of the workspace', async () => {
    await fs.symlink(srv.tmp, path.join(ws, 'escape-link'));
    expect(await post('/api/workspace/upload', [{ name: 'session_id', content: id }, { name: 'path', content: 'escape-link/in' }, { name: 'file', filename: 'x.txt', content: 'x' }])).toEqual({
      status: 403,
      body: { error: 'Upload target escapes workspace' },
    });
    await expect(fs.stat(path.join(srv.tmp, 'in'))).rejects.toThrow();
  });

  it('checks session_id first, then file parts, then the session', async () => {
    expect(await post('/api/workspace/upload', [{ name: 'file', filename: 'x.txt', content: 'x' }])).toEqual({ status: 400, body: { error: 'Missing session_id' } });
    expect(await post('/api/workspace/upload', [{ name: 'session_id', content: id }])).toEqual({ status: 400, body: { error: 'No file field in request' } });
    expect(await post('/api/workspace/upload', [{ name: 'session_id', content: 'abcabcabcabc' }, { name: 'file', filename: 'x', content: 'x' }])).toEqual({
      status: 404,
      body: { error: 'Session not found' },
    });
  });

  it('extracts an archive in place and removes the uploaded archive', async () => {
    const zip = await zipOf({ 'one.txt': '1', 'nested/two.txt': '2' });
    const { status, body } = await post('/api/workspace/upload', [{ name: 'session_id', content: id }, { name: 'path', content: 'arch' }, { name: 'file', filename: 'pack.zip', content: zip }]);
    expect(status).toBe(200);
    expect({ ...body, extracted_files: [...body.extracted_files].sort() }).toEqual({
      filename: 'pack.zip',
      path: path.join(ws, 'arch', 'pack'),
      size: zip.length,
      is_image: false,
      extracted: true,
      extracted_files: ['pack/nested/two.txt', 'pack/one.txt'],
      extracted_count: 2,
    });
    expect(await fs.readFile(path.join(ws, 'arch/pack/nested/two.txt'), 'utf8')).toBe('2');
    await expect(fs.stat(path.join(ws, 'arch', 'pack.zip'))).rejects.toThrow();
  });

  it('reports a failed extraction on the item and removes the archive', async () => {
    const { status, body } = await post('/api/workspace/upload', [{ name: 'session_id', content: id }, { name: 'path', content: 'bad' }, { name: 'file', filename: 'bad.tar.gz', content: 'garbage' }]);
    expect(status).toBe(200);
    expect(body).toMatchObject({ filename: 'bad.tar.gz', extracted: false, is_image: false });
    expect(body.extract_error).toBeTruthy();
    // Where it would have been extracted in place: the upload's target directory, not the removed archive.
    expect(body.path).toBe(path.join(ws, 'bad'));
    expect(await fs.readdir(path.join(ws, 'bad'))).toEqual([]);
  });
});

describe('slip errors quote the member as the archive spells it', () => {
  let id: string;
  beforeAll(async () => {
    id = await srv.newSession();
  });

  /** A zip written by Info-ZIP `zip` whose only member is stored under `memberName` (patched in place, same length). */
  async function infoZipNamed(memberName: string): Promise<Buffer> {
    const dir = await fs.mkdtemp(path.join(srv.tmp, 'slipzip-'));
    const placeholder = 'x'.repeat(memberName.length);
    await fs.writeFile(path.join(dir, placeholder), 'escape');
    execFileSync('zip', ['-q', '-X', 'out.zip', placeholder], { cwd: dir });
    const bytes = await fs.readFile(path.join(dir, 'out.zip'));
    // The name appears twice (local header and central directory); both are rewritten.
    return Buffer.from(bytes.toString('latin1').split(placeholder).join(memberName), 'latin1');
  }

  it.each(['/tmp/evil/x.txt', '../../outside.txt'])('Zip-slip blocked: %s (not <path>)', async (member) => {
    const zip = await infoZipNamed(member);
    const res = await post('/api/upload/extract', [{ name: 'session_id', content: id }, { name: 'file', filename: 'slip.zip', content: zip }]);
    expect(res).toEqual({ status: 400, body: { error: `Zip-slip blocked: ${member}` } });
  });

  it('Tar-slip blocked: /tmp/evil/x.txt from a GNU tar archive', async () => {
    const dir = await fs.mkdtemp(path.join(srv.tmp, 'sliptar-'));
    await fs.mkdir(path.join(dir, 'evil'));
    await fs.writeFile(path.join(dir, 'evil', 'x.txt'), 'escape');
    // --absolute-names keeps the leading slash; --transform puts the member under /tmp.
    execFileSync('tar', ['-cf', 'out.tar', '--absolute-names', '--transform', 's,^evil,/tmp/evil,', 'evil/x.txt'], { cwd: dir });
    const res = await post('/api/upload/extract', [{ name: 'session_id', content: id }, { name: 'file', filename: 'slip.tar', content: await fs.readFile(path.join(dir, 'out.tar')) }]);
    expect(res).toEqual({ status: 400, body: { error: 'Tar-slip blocked: /tmp/evil/x.txt' } });
  });
});

describe('4.1 on workspace upload: one file part per field name', () => {
  it('a later part with the same field name replaces the earlier one; distinct names all count', async () => {
    const id = await srv.newSession();
    const ws = await fs.realpath(srv.workspace);
    const { status, body } = await post('/api/workspace/upload', [
      { name: 'session_id', content: id },
      { name: 'path', content: 'fields' },
      { name: 'file', filename: 'first.txt', content: 'replaced' },
      { name: 'file1', filename: 'one.txt', content: '1' },
      { name: 'file', filename: 'second.txt', content: 'kept' },
      { name: 'file2', filename: 'two.txt', content: '2' },
    ]);
    expect(status).toBe(200);
    expect(body.count).toBe(3);
    expect(body.files.map((f: { filename: string }) => f.filename)).toEqual(['second.txt', 'one.txt', 'two.txt']);
    expect((await fs.readdir(path.join(ws, 'fields'))).sort()).toEqual(['one.txt', 'second.txt', 'two.txt']);
    await stagingEmpty();
  });
});
