// Taking back a failed workspace upload, asked directly: what the request placed goes, the folders it made go
// only when empty (a concurrent upload may have put a file in one), and nothing else in the target is touched.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { PlacedPart } from './upload-store.js';
import { uploadTarget } from './upload-target.js';
import { undoUpload } from './upload-undo.js';

let ws: string;

beforeEach(async () => {
  ws = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-upload-undo-')));
});
afterEach(async () => {
  await fs.rm(ws, { recursive: true, force: true });
});

const part = (names: string[]): PlacedPart => ({ item: { filename: names[0]!, path: '', size: 0, is_image: false, extracted: false }, names });

it('removes the placed files, sidecars and extraction folders, then the made folders that are empty', async () => {
  const created: string[] = [];
  const target = await uploadTarget(ws, 'a/b', created);
  try {
    const b = path.join(ws, 'a', 'b');
    await fs.writeFile(path.join(b, 'report.docx'), 'doc');
    await fs.writeFile(path.join(b, 'report.docx.md'), 'preview');
    await fs.mkdir(path.join(b, 'bundle', 'deep'), { recursive: true });
    await fs.writeFile(path.join(b, 'bundle', 'deep', 'x.txt'), 'x');
    await fs.writeFile(path.join(b, 'someone-else.txt'), 'kept');
    // Another request's file in a folder this one made: the folder stays.
    await fs.writeFile(path.join(ws, 'a', 'concurrent.txt'), 'kept');
    await undoUpload(ws, target, [part(['report.docx', 'report.docx.md']), part(['bundle'])], created);
    expect(await fs.readdir(b)).toEqual(['someone-else.txt']);
    expect((await fs.readdir(path.join(ws, 'a'))).sort()).toEqual(['b', 'concurrent.txt']);
  } finally {
    await target.close();
  }
});

it('removes every folder it made when they are empty, and leaves the workspace as it was', async () => {
  const created: string[] = [];
  const target = await uploadTarget(ws, 'x/y/z', created);
  try {
    await fs.writeFile(path.join(ws, 'x', 'y', 'z', 'one.txt'), '1');
    await undoUpload(ws, target, [part(['one.txt'])], created);
  } finally {
    await target.close();
  }
  expect(await fs.readdir(ws)).toEqual([]);
});
