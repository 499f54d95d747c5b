// An Office attachment's Markdown through its held folder: the sidecar used when there, written whole when not,
// and whatever else sits at the sidecar's name (a symlink, a folder) neither followed nor in the way.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildDocx, wPara, wRun } from '../../office/testing/fixtures.js';
import { AnchoredDir, forceAnchorMode, type AnchorMode } from '../../store/anchored.js';
import { storedFileMode } from '../../store/file-mode.js';
import { officeMarkdownIn } from './office-markdown.js';

let tmp: string;
let dir: string;
let held: AnchoredDir | undefined;

beforeEach(async () => {
  tmp = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'satchel-office-md-')));
  dir = path.join(tmp, 'attachments');
  await fsp.mkdir(dir);
});
afterEach(async () => {
  forceAnchorMode(undefined);
  await held?.close();
  held = undefined;
  await fsp.rm(tmp, { recursive: true, force: true });
});

/** The Markdown of `name` (written into the folder first), read as input.ts does: folder and file held open. */
async function markdownOf(name: string, words: string): Promise<string> {
  await fsp.writeFile(path.join(dir, name), await buildDocx(wPara(wRun(words))));
  held = await AnchoredDir.open(dir);
  const file = await held.openFile(name, fs.constants.O_RDONLY);
  try {
    return await officeMarkdownIn(held, name, file, 'docx');
  } finally {
    await file.close();
  }
}

// The descriptor-anchored folder where the system has one (Linux), and the path-and-check fallback (macOS).
describe.each<{ mode: AnchorMode | undefined }>([{ mode: undefined }, { mode: 'verify' }])('Office attachment Markdown (anchor mode $mode)', ({ mode }) => {
  beforeEach(() => forceAnchorMode(mode));

  it('converts the document and leaves its whole sidecar beside it, with the mode of stored files and no temporary file', async () => {
    const markdown = await markdownOf('plan.docx', 'Ship on Friday');
    expect(markdown).toContain('Ship on Friday');
    expect(await fsp.readFile(path.join(dir, 'plan.docx.md'), 'utf8')).toBe(markdown);
    expect((await fsp.stat(path.join(dir, 'plan.docx.md'))).mode & 0o777).toBe(storedFileMode());
    expect((await fsp.readdir(dir)).sort()).toEqual(['plan.docx', 'plan.docx.md']);
  });

  it('sends an existing sidecar as it is, without converting again', async () => {
    await fsp.writeFile(path.join(dir, 'plan.docx.md'), 'the sidecar written at upload');
    expect(await markdownOf('plan.docx', 'Ship on Friday')).toBe('the sidecar written at upload');
  });

  it('neither reads nor writes through a symlink at the sidecar name: it is replaced by the sidecar', async () => {
    const outside = path.join(tmp, 'outside.md');
    await fsp.writeFile(outside, 'OUTSIDE text');
    await fsp.symlink(outside, path.join(dir, 'plan.docx.md'));
    const markdown = await markdownOf('plan.docx', 'Ship on Friday');
    expect(markdown).toContain('Ship on Friday');
    expect(markdown).not.toContain('OUTSIDE');
    expect(await fsp.readFile(outside, 'utf8')).toBe('OUTSIDE text');
    expect((await fsp.lstat(path.join(dir, 'plan.docx.md'))).isFile()).toBe(true);
  });

  it('still sends the Markdown when a folder holds the sidecar name, and leaves no temporary file', async () => {
    await fsp.mkdir(path.join(dir, 'plan.docx.md'));
    expect(await markdownOf('plan.docx', 'Ship on Friday')).toContain('Ship on Friday');
    expect((await fsp.readdir(dir)).sort()).toEqual(['plan.docx', 'plan.docx.md']);
    expect((await fsp.lstat(path.join(dir, 'plan.docx.md'))).isDirectory()).toBe(true);
  });
});
