import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptablePath, createShowInFolderHandler, SHOW_IN_FOLDER_CHANNEL } from './show-in-folder.js';

const APP = 'http://127.0.0.1:41234';
const top = { senderFrame: { url: `${APP}/`, parent: null } };
let tmp: string;
let file: string;

beforeAll(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-show-')));
  file = path.join(tmp, 'report.pdf');
  await fs.writeFile(file, 'x');
  await fs.symlink(file, path.join(tmp, 'link.pdf'));
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

function setup() {
  const shown: string[] = [];
  const handler = createShowInFolderHandler({ appOrigin: APP, lstat: (p) => fs.lstat(p), showItemInFolder: (p) => shown.push(p) });
  return { handler, shown };
}

describe('show in folder', () => {
  it('uses its own channel', () => {
    expect(SHOW_IN_FOLDER_CHANNEL).toBe('satchel:show-in-folder');
  });

  it('reveals a regular file the app page names by its absolute path', async () => {
    const { handler, shown } = setup();
    await expect(handler(top, file)).resolves.toBe(true);
    expect(shown).toEqual([file]);
  });

  it('refuses a symlink, a folder, a missing file, a relative or unnormalized path, and extra arguments', async () => {
    const { handler, shown } = setup();
    for (const args of [[path.join(tmp, 'link.pdf')], [tmp], [path.join(tmp, 'missing')], ['report.pdf'], [`${tmp}/../${path.basename(tmp)}/report.pdf`], [file, 'x'], [], [42], [`${file}\0`]]) {
      await expect(handler(top, ...args), JSON.stringify(args)).resolves.toBe(false);
    }
    expect(shown).toEqual([]);
  });

  it('answers only the app’s own top-level document', async () => {
    const { handler, shown } = setup();
    await expect(handler({ senderFrame: { url: 'https://evil.test/', parent: null } }, file)).rejects.toThrow('untrusted sender');
    await expect(handler({ senderFrame: { url: `${APP}/`, parent: top.senderFrame } }, file)).rejects.toThrow('untrusted sender');
    expect(shown).toEqual([]);
  });

  it('accepts only absolute normalized paths', () => {
    expect(acceptablePath('/a/b.txt')).toBe(true);
    expect(acceptablePath('/a/./b.txt')).toBe(false);
    expect(acceptablePath('/'.repeat(2) + 'a')).toBe(false);
    expect(acceptablePath('x'.repeat(5000))).toBe(false);
  });
});
