// Office sidecars through POST /api/workspace/upload: files unpacked from an archive made by the real `zip`
// tool get theirs, a failure says why in plain words, and one request's budget bounds them all.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnchoredDir } from '../store/anchored.js';
import { postMultipart, startTestServer, type TestServer } from '../testing/harness.js';
import { writeExtractedSidecars } from './batch.js';
import { SidecarBudget } from './budget.js';
import { buildDocx, wPara } from './testing/fixtures.js';

let srv: TestServer;
let ws: string;
let session: string;
let scratch: string;

beforeAll(async () => {
  srv = await startTestServer();
  ws = await fs.realpath(srv.workspace);
  session = await srv.newSession();
  scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-office-upload-'));
});
afterAll(async () => {
  await srv.stop();
  await fs.rm(scratch, { recursive: true, force: true });
});

const ENCRYPTED = Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(1024)]);

/** A zip made by Info-ZIP's `zip` from the given files (a folder inside it too). */
async function zipped(name: string, files: Record<string, Buffer | string>): Promise<Buffer> {
  const dir = await fs.mkdtemp(path.join(scratch, 'src-'));
  for (const [rel, data] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fs.writeFile(path.join(dir, rel), data);
  }
  execFileSync('zip', ['-qr', path.join(scratch, name), '.'], { cwd: dir });
  return fs.readFile(path.join(scratch, name));
}

describe('sidecars on workspace upload', () => {
  it('gives every Office file extracted from an uploaded zip its sidecar, and says why one failed', async () => {
    const files: Record<string, Buffer | string> = { 'notes.txt': 'plain' };
    for (let i = 1; i <= 3; i += 1) files[`reports/q${i}.docx`] = await buildDocx(wPara(`Quarter ${i} report`));
    files['reports/locked.docx'] = ENCRYPTED;
    const res = await postMultipart(srv, '/api/workspace/upload', [
      { name: 'session_id', content: session },
      { name: 'path', content: 'unpacked' },
      { name: 'file', filename: 'bundle.zip', content: await zipped('bundle.zip', files) },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.extracted).toBe(true);
    const bySource = Object.fromEntries((res.body.sidecars as { file: string }[]).map((s) => [s.file, s]));
    expect(Object.keys(bySource).sort()).toEqual(['bundle/reports/locked.docx', 'bundle/reports/q1.docx', 'bundle/reports/q2.docx', 'bundle/reports/q3.docx']);
    expect(bySource['bundle/reports/locked.docx']).toEqual({
      file: 'bundle/reports/locked.docx',
      sidecar_error: 'Office sidecar extraction failed',
      sidecar_reason: 'encrypted or saved in the old binary format',
    });
    const q2 = path.join(ws, 'unpacked', 'bundle', 'reports', 'q2.docx.md');
    expect(bySource['bundle/reports/q2.docx']).toMatchObject({ sidecar: { filename: 'q2.docx.md', path: q2, preview_kind: 'office', office_format: 'docx' } });
    expect(await fs.readFile(q2, 'utf8')).toBe('Quarter 2 report\n');
  });

  it('adds sidecar_reason next to the fixed sidecar_error for a single file', async () => {
    const res = await postMultipart(srv, '/api/workspace/upload', [
      { name: 'session_id', content: session },
      { name: 'file', filename: 'old.docx', content: ENCRYPTED },
      { name: 'file1', filename: 'junk.xlsx', content: 'not a zip at all' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.files.map((f: Record<string, unknown>) => [f.filename, f.sidecar_error, f.sidecar_reason])).toEqual([
      ['old.docx', 'Office sidecar extraction failed', 'encrypted or saved in the old binary format'],
      ['junk.xlsx', 'Office sidecar extraction failed', 'not a readable zip file'],
    ]);
  });
});

describe('the shared budget', () => {
  it('stops previews once the size allowance is spent, keeping the files and saying why', async () => {
    const dir = await fs.mkdtemp(path.join(scratch, 'budget-'));
    const doc = await buildDocx(wPara('text'));
    for (const name of ['a.docx', 'b.docx', 'c.docx']) await fs.writeFile(path.join(dir, name), doc);
    const base = await AnchoredDir.open(dir);
    try {
      // Room for two of the three.
      const result = await writeExtractedSidecars(base, ['a.docx', 'b.docx', 'c.docx'], new SidecarBudget(60_000, doc.length * 2.5));
      expect(result.map((r) => r.sidecar_reason ?? r.sidecar?.filename)).toEqual(['a.docx.md', 'b.docx.md', "this upload's size allowance for text previews ran out"]);
      const spent = await writeExtractedSidecars(base, ['c.docx'], new SidecarBudget(0));
      expect(spent[0]!.sidecar_reason).toBe("this upload's time for text previews ran out");
    } finally {
      await base.close();
    }
    expect((await fs.readdir(dir)).sort()).toEqual(['a.docx', 'a.docx.md', 'b.docx', 'b.docx.md', 'c.docx']);
  });
});
