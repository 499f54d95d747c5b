// An archive attached but not extracted, as the agent gets it: archives made by the tools people use, listed
// and read in memory, never extracted to disk.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_ARCHIVE_MEMBERS } from '../../archive/limits.js';
import { hasTool, run } from '../../archive/testing/real-tools.js';
import { buildZip } from '../../archive/testing/zip-builder.js';
import type { ChatAttachment } from '../../core/wire.js';
import type { Part } from '../index.js';
import { Budget, readAttachment } from '../index.js';

let tmp: string;
let root: string;
let src: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-archive-file-'));
  root = path.join(tmp, 'attachments');
  src = path.join(tmp, 'src');
  fs.mkdirSync(root);
  fs.mkdirSync(path.join(src, 'project', 'src'), { recursive: true });
  fs.writeFileSync(path.join(src, 'project', 'README.md'), '# Project\nHello.\n');
  fs.writeFileSync(path.join(src, 'project', 'src', 'main.c'), 'int main(void) { return 0; }\n');
  fs.writeFileSync(path.join(src, 'project', 'logo.bin'), Buffer.from([0, 1, 2, 3, 0, 0, 0xff]));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function attachment(name: string): ChatAttachment {
  const file = path.join(root, name);
  return { kind: 'file', filename: name, path: file, mime: 'application/octet-stream', size: fs.statSync(file).size, is_image: false };
}
const texts = (parts: Part[]) => parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n');

/** The project tree as `tool` packs it, sorted the same way whatever the tool's own order. */
function pack(name: string, command: string, args: (out: string) => string[]): ChatAttachment {
  run(command, args(path.join(root, name)), src);
  return attachment(name);
}

const EXPECTED_LIST = ['- project/README.md (17 bytes)', '- project/logo.bin (7 bytes)', '- project/src/main.c (29 bytes)'];

function listLines(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('- '))
    .sort();
}

describe('an archive not extracted reaches the agent as its list and its text files', () => {
  it.skipIf(!hasTool('zip', 'zip'))('Info-ZIP zip: exact list, text members inlined, summary', async () => {
    const a = pack('project.zip', 'zip', (out) => ['-qr', out, 'project']);
    const read = await readAttachment(a, new Budget(200_000), { roots: [root] });
    const text = texts(read.parts);
    expect(text.split('\n')[0]).toBe('Archive "project.zip" (3 files, not extracted):');
    expect(listLines(text)).toEqual(EXPECTED_LIST);
    expect(text).toContain('Attached file "project.zip/project/README.md":\n# Project\nHello.\n');
    expect(text).toContain('Attached file "project.zip/project/src/main.c":\nint main(void) { return 0; }\n');
    expect(read.summary).toEqual({ state: 'ready', text: 'file list of 3 files, 2 text files inline' });
    // Listed, not extracted: nothing new beside the archive.
    expect(fs.readdirSync(root)).toEqual(['project.zip']);
  });

  for (const [name, command, args] of [
    ['project.tar.gz', 'tar', (out: string) => ['-czf', out, 'project']],
    ['project.tgz', 'bsdtar', (out: string) => ['-czf', out, 'project']],
    ['project.tar.bz2', 'tar', (out: string) => ['-cjf', out, 'project']],
    ['project.tar.xz', 'tar', (out: string) => ['-cJf', out, 'project']],
    ['project.tar', 'bsdtar', (out: string) => ['-cf', out, 'project']],
  ] as const) {
    it.skipIf(!hasTool(command, command === 'tar' ? 'tar' : 'libarchive-tools'))(`${name} by ${command}: the same list and text`, async () => {
      const a = pack(name, command, args);
      const read = await readAttachment(a, new Budget(200_000), { roots: [root] });
      const text = texts(read.parts);
      expect(text.split('\n')[0]).toBe(`Archive "${name}" (3 files, not extracted):`);
      expect(listLines(text)).toEqual(EXPECTED_LIST);
      expect(text).toContain('# Project\nHello.\n');
      expect(read.summary).toEqual({ state: 'ready', text: 'file list of 3 files, 2 text files inline' });
    });
  }

  it.skipIf(!hasTool('7z', 'p7zip-full'))('7-Zip `7z a -tzip`, found by its bytes under a name that says nothing', async () => {
    run('7z', ['a', '-tzip', '-bd', path.join(tmp, 'download.zip'), 'project'], src);
    fs.renameSync(path.join(tmp, 'download.zip'), path.join(root, 'download'));
    const read = await readAttachment(attachment('download'), new Budget(200_000), { roots: [root] });
    expect(listLines(texts(read.parts))).toEqual(EXPECTED_LIST);
    expect(read.summary.state).toBe('ready');
  });

  it.skipIf(!hasTool('zip', 'zip'))('the budget cuts the inlined text with a marker, and the summary says so', async () => {
    fs.writeFileSync(path.join(src, 'project', 'README.md'), 'r'.repeat(5000));
    const a = pack('project.zip', 'zip', (out) => ['-qr', out, 'project']);
    const list = texts((await readAttachment(a, new Budget(200_000), { roots: [root] })).parts).split('\n\n')[0]!;
    const read = await readAttachment(a, new Budget(list.length + 100), { roots: [root] });
    const text = texts(read.parts);
    expect(text).toContain('int main(void) { return 0; }\n');
    expect(text).toMatch(/Attached file "project\.zip\/project\/README\.md":\nr+\n\[… truncated: \d+ more characters of project\.zip\/project\/README\.md\]$/);
    expect(read.summary).toEqual({ state: 'partial', text: 'file list of 3 files, 2 text files inline, cut to fit' });
  });

  it.skipIf(!hasTool('zip', 'zip'))('an encrypted zip (`zip -P`) is not readable, with what to do', async () => {
    const a = pack('secret.zip', 'zip', (out) => ['-qr', '-P', 'hunter2', out, 'project']);
    const read = await readAttachment(a, new Budget(200_000), { roots: [root] });
    expect(read.summary).toEqual({ state: 'unreadable', text: 'encrypted: extract it yourself and drop the folder' });
    expect(texts(read.parts)).not.toContain('# Project');
  });

  it('a damaged zip is not readable, and says so', async () => {
    fs.writeFileSync(path.join(root, 'broken.zip'), Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(100, 7)]));
    const read = await readAttachment(attachment('broken.zip'), new Budget(200_000), { roots: [root] });
    expect(read.summary.state).toBe('unreadable');
    expect(read.summary.text).toMatch(/^damaged: .*check that it opens on your computer/);
  });

  it('an archive of more than 10,000 entries is not readable, with what to do, before any entry is read', async () => {
    fs.writeFileSync(path.join(root, 'many.zip'), buildZip([{ name: 'a.txt', content: Buffer.from('a') }], { declaredCount: MAX_ARCHIVE_MEMBERS + 1 }));
    const read = await readAttachment(attachment('many.zip'), new Budget(200_000), { roots: [root] });
    expect(read.summary).toEqual({ state: 'unreadable', text: 'more than 10,000 entries: extract the part you need and drop that folder' });
  });

  it.skipIf(!hasTool('tar', 'tar'))('a tar.gz with a `../` member lists it as skipped, with why', async () => {
    fs.writeFileSync(path.join(src, 'evil.txt'), 'climbing out\n');
    fs.mkdirSync(path.join(src, 'in'));
    run('tar', ['-czf', path.join(root, 'evil.tar.gz'), '-P', 'project/README.md', 'in/../../src/evil.txt'], path.join(src));
    const read = await readAttachment(attachment('evil.tar.gz'), new Budget(200_000), { roots: [root] });
    const text = texts(read.parts);
    expect(text.split('\n').slice(0, 3)).toEqual([
      'Archive "evil.tar.gz" (1 file, 1 skipped, not extracted):',
      '- project/README.md (17 bytes)',
      '- in/../../src/evil.txt (skipped: its path leads outside the archive, so extracting it is refused)',
    ]);
    expect(text).not.toContain('climbing out');
  });

  it.skipIf(!hasTool('tar', 'tar'))('GNU tar hard and symbolic links: listed as the extraction treats them', async () => {
    fs.linkSync(path.join(src, 'project', 'README.md'), path.join(src, 'project', 'README-copy.md'));
    fs.symlinkSync('README.md', path.join(src, 'project', 'latest.md'));
    run('tar', ['-cf', path.join(root, 'links.tar'), 'project/README.md', 'project/README-copy.md', 'project/latest.md'], src);
    const text = texts((await readAttachment(attachment('links.tar'), new Budget(200_000), { roots: [root] })).parts);
    expect(text.split('\n').slice(0, 4)).toEqual([
      'Archive "links.tar" (2 files, 1 skipped, not extracted):',
      '- project/README.md (17 bytes)',
      '- project/README-copy.md (17 bytes)',
      '- project/latest.md (skipped: symlink)',
    ]);
  });

  it('a file outside the attachment folder is not read as an archive', async () => {
    fs.copyFileSync(path.join(src, 'project', 'README.md'), path.join(tmp, 'x.zip'));
    const outside: ChatAttachment = { kind: 'file', filename: 'x.zip', path: path.join(tmp, 'x.zip'), mime: 'application/zip', size: 1, is_image: false };
    expect((await readAttachment(outside, new Budget(1000), { roots: [root] })).summary).toEqual({ state: 'unreadable', text: 'not readable from the attachment folder' });
  });
});
