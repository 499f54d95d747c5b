// POST /api/upload of what a chat attach must not store as it came (issue 25): a single `.gz` is decompressed and
// stored as what it holds; 7z and RAR archives are refused by their bytes, before anything is stored. Files made
// by the real tools (gzip, 7z); RAR by its signature bytes, as `rar` (non-free) is not installed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postMultipart, startTestServer, type TestServer } from '../testing/harness.js';
import { GZIP_UNREADABLE } from '../attachments/gunzip-upload.js';
import { RAR_REFUSED, SEVEN_ZIP_REFUSED } from '../attachments/attach-kind.js';
import { yazlZip } from '../archive/testing/fixtures.js';
import { hasTool } from '../archive/testing/real-tools.js';

let srv: TestServer;
let tmp: string;

beforeAll(async () => {
  srv = await startTestServer({ maxUploadBytes: 8 * 1024 * 1024 });
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'attach-kinds-'));
});
afterAll(async () => {
  await srv.stop();
  await fs.rm(tmp, { recursive: true, force: true });
});

const HAS_GZIP = hasTool('gzip', 'gzip');
const HAS_7Z = hasTool('7z', 'p7zip-full');

const LOG = Array.from({ length: 2000 }, (_, i) => `2026-11-26T12:00:${String(i % 60).padStart(2, '0')}Z INFO request ${i} served in ${i % 97} ms`).join('\n') + '\n';

/** `gzip -9` of `text` saved as `name`, its bytes. */
async function gzipped(name: string, text: string | Buffer): Promise<Buffer> {
  const plain = path.join(tmp, name.replace(/\.gz$/i, ''));
  await fs.writeFile(plain, text);
  execFileSync('gzip', ['-9', '-f', '-k', plain]);
  return fs.readFile(`${plain}.gz`);
}

const upload = (session: string, filename: string, content: Buffer | string) =>
  postMultipart(srv, '/api/upload', [
    { name: 'session_id', content: session },
    { name: 'file', filename, content },
  ]);

const attachDir = (id: string) => path.join(srv.stateDir, 'attachments', id);
const listed = async (id: string) => (await fs.readdir(attachDir(id)).catch(() => [])).sort();
const staging = () => fs.readdir(path.join(srv.stateDir, 'staging'));

describe.skipIf(!HAS_GZIP)('a single .gz attached', () => {
  it('is stored decompressed, named without .gz, and the answer says what it came from', async () => {
    const id = await srv.newSession();
    const gz = await gzipped('server.log.gz', LOG);
    const { status, body } = await upload(id, 'server.log.gz', gz);
    expect(status).toBe(200);
    expect(body).toEqual({
      filename: 'server.log',
      path: path.join(attachDir(id), 'server.log'),
      size: Buffer.byteLength(LOG),
      mime: 'text/plain',
      is_image: false,
      decompressed_from: 'server.log.gz',
    });
    expect(await fs.readFile(body.path, 'utf8')).toBe(LOG);
    expect(await listed(id)).toEqual(['server.log']);
    expect(await staging()).toEqual([]);
    // The session records it as stored, with where it came from.
    const shown = (await (await srv.api(`/api/session?session_id=${id}`)).json()) as { session: { attachments: unknown[] } };
    expect(shown.session.attachments).toEqual([expect.objectContaining({ filename: 'server.log', decompressed_from: 'server.log.gz' })]);
  });

  it('takes a unique stored name as uploads do: a second server.log.gz is server-1.log', async () => {
    const id = await srv.newSession();
    const gz = await gzipped('app.log.gz', 'first\n');
    expect((await upload(id, 'app.log.gz', gz)).body.filename).toBe('app.log');
    const second = await upload(id, 'app.log.gz', gz);
    expect(second.status).toBe(200);
    expect(second.body.filename).toBe('app-1.log');
    expect(await listed(id)).toEqual(['app-1.log', 'app.log']);
  });

  it('a damaged .gz (cut short) is a 400 with nothing stored or staged', async () => {
    const id = await srv.newSession();
    const gz = await gzipped('cut.log.gz', LOG);
    const { status, body } = await upload(id, 'cut.log.gz', gz.subarray(0, Math.floor(gz.length / 2)));
    expect({ status, body }).toEqual({ status: 400, body: { error: GZIP_UNREADABLE } });
    expect(await listed(id)).toEqual([]);
    expect(await staging()).toEqual([]);
  });

  it('a file named .gz that is not gzip at all is the same 400', async () => {
    const id = await srv.newSession();
    const { status, body } = await upload(id, 'notes.txt.gz', 'plain text, never compressed\n');
    expect({ status, body }).toEqual({ status: 400, body: { error: GZIP_UNREADABLE } });
    expect(await listed(id)).toEqual([]);
  });

  it('.tar.gz and .tgz stay archives, stored as they came', async () => {
    const id = await srv.newSession();
    await fs.mkdir(path.join(tmp, 'proj'), { recursive: true });
    await fs.writeFile(path.join(tmp, 'proj', 'a.txt'), 'a\n');
    execFileSync('tar', ['-czf', path.join(tmp, 'proj.tar.gz'), '-C', tmp, 'proj']);
    const tgz = await fs.readFile(path.join(tmp, 'proj.tar.gz'));
    for (const name of ['proj.tar.gz', 'proj.tgz']) {
      const { status, body } = await upload(id, name, tgz);
      expect(status).toBe(200);
      expect(body.filename).toBe(name);
      expect(body.decompressed_from).toBeUndefined();
      expect(await fs.readFile(body.path)).toEqual(tgz);
    }
  });
});

describe('7z and RAR refused at attach time', () => {
  it.skipIf(!HAS_7Z)('a .7z made by 7z is a 400 with the reason, nothing stored', async () => {
    const id = await srv.newSession();
    await fs.writeFile(path.join(tmp, 'readme.txt'), 'hello\n');
    execFileSync('7z', ['a', '-bd', '-y', path.join(tmp, 'bundle.7z'), path.join(tmp, 'readme.txt')], { stdio: 'ignore' });
    const bytes = await fs.readFile(path.join(tmp, 'bundle.7z'));
    for (const name of ['bundle.7z', 'renamed.bin']) {
      const { status, body } = await upload(id, name, bytes);
      expect({ status, body }).toEqual({ status: 400, body: { error: SEVEN_ZIP_REFUSED } });
    }
    expect(SEVEN_ZIP_REFUSED).toBe("7z archives can't be read by Satchel yet. Extract it and drop the folder, or make a .zip.");
    expect(await listed(id)).toEqual([]);
    expect(await staging()).toEqual([]);
  });

  it('RAR 4 and RAR 5 signatures are refused (made by their magic bytes: rar is not installed)', async () => {
    const id = await srv.newSession();
    const rar4 = Buffer.concat([Buffer.from('Rar!\x1a\x07\x00', 'latin1'), Buffer.alloc(64, 1)]);
    const rar5 = Buffer.concat([Buffer.from('Rar!\x1a\x07\x01\x00', 'latin1'), Buffer.alloc(64, 1)]);
    for (const [name, bytes] of [['old.rar', rar4], ['new.rar', rar5], ['disguised.zip', rar5]] as const) {
      const { status, body } = await upload(id, name, bytes);
      expect({ name, status, body }).toEqual({ name, status: 400, body: { error: RAR_REFUSED } });
    }
    expect(await listed(id)).toEqual([]);
  });

  it.skipIf(!HAS_7Z || !HAS_GZIP)('a 7z inside a .gz is refused too, nothing stored or staged', async () => {
    const id = await srv.newSession();
    await fs.writeFile(path.join(tmp, 'inner.txt'), 'inner\n');
    execFileSync('7z', ['a', '-bd', '-y', path.join(tmp, 'inner.7z'), path.join(tmp, 'inner.txt')], { stdio: 'ignore' });
    const gz = await gzipped('inner.7z.gz', await fs.readFile(path.join(tmp, 'inner.7z')));
    expect(await upload(id, 'inner.7z.gz', gz)).toMatchObject({ status: 400, body: { error: SEVEN_ZIP_REFUSED } });
    expect(await listed(id)).toEqual([]);
    expect(await staging()).toEqual([]);
  });

  it.skipIf(!HAS_7Z)('POST /api/upload/extract of a .7z or .rar: the specification\'s 400, with the reason as its hint', async () => {
    const id = await srv.newSession();
    await fs.writeFile(path.join(tmp, 'readme.txt'), 'hello\n');
    execFileSync('7z', ['a', '-bd', '-y', path.join(tmp, 'extract-me.7z'), path.join(tmp, 'readme.txt')], { stdio: 'ignore' });
    const rar5 = Buffer.concat([Buffer.from('Rar!\x1a\x07\x01\x00', 'latin1'), Buffer.alloc(64, 1)]);
    const extract = (filename: string, content: Buffer) =>
      postMultipart(srv, '/api/upload/extract', [
        { name: 'session_id', content: id },
        { name: 'file', filename, content },
      ]);
    const seven = await extract('bundle.7z', await fs.readFile(path.join(tmp, 'extract-me.7z')));
    expect({ status: seven.status, body: seven.body }).toEqual({ status: 400, body: { error: 'Unsupported archive format: bundle.7z', hint: SEVEN_ZIP_REFUSED } });
    // By its bytes under a name that says nothing, and by its name alone.
    const rar = await extract('download.bin', rar5);
    expect({ status: rar.status, body: rar.body }).toEqual({ status: 400, body: { error: 'Unsupported archive format: download.bin', hint: RAR_REFUSED } });
    const named = await extract('old.rar', Buffer.from('not really'));
    expect({ status: named.status, body: named.body }).toEqual({ status: 400, body: { error: 'Unsupported archive format: old.rar', hint: RAR_REFUSED } });
    // Anything else unsupported keeps the specification's answer alone.
    const other = await extract('notes.txt', Buffer.from('hello'));
    expect({ status: other.status, body: other.body }).toEqual({ status: 400, body: { error: 'Unsupported archive format: notes.txt' } });
    expect(await listed(id)).toEqual([]);
  });

  it('a .7z-named file that is really a zip is stored, not refused', async () => {
    const id = await srv.newSession();
    const zip = await yazlZip({ 'a.txt': 'a\n' });
    const { status, body } = await upload(id, 'mislabelled.7z', zip);
    expect(status).toBe(200);
    expect(body.filename).toBe('mislabelled.7z');
    expect(await fs.readFile(body.path)).toEqual(zip);
  });

  it('the workspace upload (the person\'s own folder) keeps accepting a .7z as a file', async () => {
    const id = await srv.newSession();
    const bytes = Buffer.concat([Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0, 4]), Buffer.alloc(32)]);
    const { status, body } = await postMultipart(srv, '/api/workspace/upload', [
      { name: 'session_id', content: id },
      { name: 'file', filename: 'kept.7z', content: bytes },
    ]);
    expect(status).toBe(200);
    expect(body.name ?? body.filename ?? body.path).toBeTruthy();
    expect(JSON.stringify(body)).toContain('kept.7z');
  });
});
