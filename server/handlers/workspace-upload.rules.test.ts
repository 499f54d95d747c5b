// POST /api/workspace/upload (spec-notes 4.7) over real sockets: targets, names, archives, the bytes on disk.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { yazlZip } from '../archive/testing/fixtures.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, startTestServer, type TestServer, postMultipart, TEST_BOUNDARY, type Part } from '../testing/harness.js';

const BOUNDARY = TEST_BOUNDARY;
let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer({ maxUploadBytes: 8 * 1024 * 1024 });
});
afterAll(async () => {
  await srv.stop();
});

const post = (pathname: string, parts: Part[], headers: Record<string, string> = {}) => postMultipart(srv, pathname, parts, headers);


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
    // Named .png, holding a letter: no image (issue 35: the bytes decide, never the name).
    expect(many.body.files[1].is_image).toBe(false);
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
    const zip = await yazlZip({ 'one.txt': '1', 'nested/two.txt': '2' });
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
      // Beyond the specification's fields: what was left out, always present on an extracted item.
      skipped: [],
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
