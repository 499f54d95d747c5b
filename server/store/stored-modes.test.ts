// Files are not written with mixed permissions: an upload hard-linked from staging (0600) and one copied
// across devices, its Office sidecar and a workspace upload all end with one mode: 0644 with the umask applied.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildDocx, wPara, wRun } from '../office/testing/fixtures.js';
import { postMultipart } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';
import { forceAnchorMode } from './anchored.js';
import { mkdirInside, placeUnique } from './files.js';
import { currentUmask, STORED_FILE_MODE, storedFileMode } from './file-mode.js';

const errors = { exists: (n: string) => `exists: ${n}`, rejected: (n: string): [number, string] => [403, `rejected: ${n}`] };
const modeOf = async (p: string) => (await fs.stat(p)).mode & 0o777;
/** Read the way a person would expect it: what `umask` prints in the shell that started us. */
const expected = () => STORED_FILE_MODE & ~currentUmask();

const srv = testServerForFile();
afterEach(() => forceAnchorMode(undefined));

describe('stored file mode', () => {
  it('reads the umask of this process', () => {
    const mask = process.umask();
    expect(currentUmask()).toBe(mask);
    expect(storedFileMode()).toBe(0o644 & ~mask);
  });

  it('is the same whether the staged file (0600) was hard-linked or copied', async () => {
    const tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-modes-')));
    try {
      const staged = path.join(tmp, 'staged');
      await fs.writeFile(staged, 'bytes', { mode: 0o600 });
      const dir = await mkdirInside(tmp, path.join(tmp, 'out'));
      try {
        const linked = await placeUnique(staged, dir, 'linked.txt', errors);
        expect((await fs.stat(linked.path)).nlink).toBe(2);
        forceAnchorMode('verify'); // no anchored directory: the copy path
        const verifyDir = await mkdirInside(tmp, path.join(tmp, 'copied'));
        const copied = await placeUnique(staged, verifyDir, 'copied.txt', errors);
        await verifyDir.close();
        expect((await fs.stat(copied.path)).nlink).toBe(1);
        expect([await modeOf(linked.path), await modeOf(copied.path)]).toEqual([expected(), expected()]);
      } finally {
        await dir.close();
      }
    } finally {
      await fs.rm(tmp, { recursive: true, force: true });
    }
  });

  it('is the same for an attachment, a workspace upload and its Office sidecar, as uploaded over HTTP', async () => {
    const session = await srv.newSession();
    const docx = await buildDocx(wPara(wRun('Quarterly numbers')));
    const att = await postMultipart(srv, '/api/upload', [
      { name: 'session_id', content: session },
      { name: 'file', filename: 'notes.txt', content: 'hello' },
    ]);
    expect(att.status).toBe(200);
    const ws = await postMultipart(srv, '/api/workspace/upload', [
      { name: 'session_id', content: session },
      { name: 'file', filename: 'report.docx', content: docx },
    ]);
    expect(ws.status).toBe(200);
    const stored = ws.body.files?.[0] ?? ws.body;
    expect(stored.sidecar?.path).toBeTruthy();
    const paths = [att.body.path as string, path.join(await fs.realpath(srv.workspace), 'report.docx'), stored.sidecar.path as string];
    expect(await Promise.all(paths.map(modeOf))).toEqual(paths.map(expected));
  });
});
