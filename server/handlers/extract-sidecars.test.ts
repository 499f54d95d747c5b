// POST /api/upload/extract gives the Office files it unpacks their Markdown sidecars, as a workspace upload
// does: listed per file in `sidecars` (named exactly as in `files`, even a name that looks like a secret), a
// failure saying why, and the sidecar the one an attachment preview then shows.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocx, wPara } from '../office/testing/fixtures.js';
import { postMultipart, startTestServer, type TestServer } from '../testing/harness.js';

let srv: TestServer;
let session: string;

beforeAll(async () => {
  srv = await startTestServer();
  session = await srv.newSession();
});
afterAll(async () => {
  await srv.stop();
});

/** The start of a legacy (encrypted or binary) Office file: a Compound File header. */
const ENCRYPTED = Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(1024)]);
// A GitHub token's shape: the redactor masks it in free text, never in a file name the server wrote.
const TOKEN_NAME = `ghp_${'a1B2c3D4e5'.repeat(3)}a1B2c3.docx`;

/** A zip made by Info-ZIP's `zip` from the given files. */
async function zipped(name: string, files: Record<string, Buffer | string>): Promise<Buffer> {
  const dir = await fs.mkdtemp(path.join(srv.tmp, 'src-'));
  for (const [rel, data] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fs.writeFile(path.join(dir, rel), data);
  }
  execFileSync('zip', ['-qr', path.join(srv.tmp, name), '.'], { cwd: dir });
  return fs.readFile(path.join(srv.tmp, name));
}

const extract = async (filename: string, content: Buffer) =>
  postMultipart(srv, '/api/upload/extract', [
    { name: 'session_id', content: session },
    { name: 'file', filename, content },
  ]);

describe('POST /api/upload/extract: Office sidecars', () => {
  it('writes a sidecar beside every Office file it unpacks and says why one failed', async () => {
    const files: Record<string, Buffer | string> = { 'notes.txt': 'plain', 'reports/locked.docx': ENCRYPTED, [`keys/${TOKEN_NAME}`]: await buildDocx(wPara('Named like a token')) };
    for (let i = 1; i <= 3; i += 1) files[`reports/q${i}.docx`] = await buildDocx(wPara(`Quarter ${i} report`));
    const res = await extract('bundle.zip', await zipped('bundle.zip', files));
    expect(res.status).toBe(200);
    const dest = res.body.dest as string;
    expect(res.body.extracted).toBe(6);
    const office = (res.body.files as string[]).filter((f) => f.endsWith('.docx')).sort();
    expect(office).toEqual([`bundle/keys/${TOKEN_NAME}`, 'bundle/reports/locked.docx', 'bundle/reports/q1.docx', 'bundle/reports/q2.docx', 'bundle/reports/q3.docx']);
    // One entry per Office file, named exactly as in `files`.
    const bySource = Object.fromEntries((res.body.sidecars as { file: string }[]).map((s) => [s.file, s]));
    expect(Object.keys(bySource).sort()).toEqual(office);
    expect(bySource['bundle/reports/locked.docx']).toEqual({
      file: 'bundle/reports/locked.docx',
      sidecar_error: 'Office sidecar extraction failed',
      sidecar_reason: 'encrypted or saved in the old binary format',
    });
    const q2 = path.join(dest, 'reports', 'q2.docx.md');
    expect(bySource['bundle/reports/q2.docx']).toEqual({ file: 'bundle/reports/q2.docx', sidecar: { filename: 'q2.docx.md', path: q2, size: 17, preview_kind: 'office', office_format: 'docx' } });
    expect(await fs.readFile(q2, 'utf8')).toBe('Quarter 2 report\n');
    const token = path.join(dest, 'keys', `${TOKEN_NAME}.md`);
    expect(bySource[`bundle/keys/${TOKEN_NAME}`]).toMatchObject({ sidecar: { filename: `${TOKEN_NAME}.md`, path: token } });
    expect(await fs.readFile(token, 'utf8')).toBe('Named like a token\n');
    // No sidecar for the failed one, and the folder holds nothing else new.
    expect((await fs.readdir(path.join(dest, 'reports'))).sort()).toEqual(['locked.docx', 'q1.docx', 'q1.docx.md', 'q2.docx', 'q2.docx.md', 'q3.docx', 'q3.docx.md']);
    // The attachment's preview is that sidecar.
    const preview = await srv.api(`/api/attachment/preview?${new URLSearchParams({ session_id: session, name: 'bundle/reports/q1.docx' })}`);
    expect(await preview.json()).toMatchObject({ kind: 'office', source: 'sidecar', text: 'Quarter 1 report\n' });
  });

  it('has no sidecars field for an archive without Office files', async () => {
    const res = await extract('plain.zip', await zipped('plain.zip', { 'a.txt': 'a', 'b/c.txt': 'c' }));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['dest', 'extracted', 'files', 'ok', 'skipped']);
  });
});

describe('POST /api/workspace/upload: an unpacked Office file named like a secret', () => {
  it('lists its sidecar under the name the files list gives it', async () => {
    const res = await postMultipart(srv, '/api/workspace/upload', [
      { name: 'session_id', content: session },
      { name: 'file', filename: 'keys.zip', content: await zipped('keys.zip', { [TOKEN_NAME]: await buildDocx(wPara('Named like a token')) }) },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.extracted_files).toEqual([`keys/${TOKEN_NAME}`]);
    expect(res.body.sidecars).toEqual([
      {
        file: `keys/${TOKEN_NAME}`,
        sidecar: { filename: `${TOKEN_NAME}.md`, path: path.join(await fs.realpath(srv.workspace), 'keys', `${TOKEN_NAME}.md`), size: 19, preview_kind: 'office', office_format: 'docx' },
      },
    ]);
  });
});
