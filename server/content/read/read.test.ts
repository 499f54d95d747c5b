import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatAttachment } from '../../core/wire.js';
import { Budget, readAttachment } from '../index.js';

let tmp: string;
let root: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-read-'));
  root = path.join(tmp, 'attachments');
  fs.mkdirSync(root);
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function upload(name: string, data: string | Buffer, mime = 'application/octet-stream'): ChatAttachment {
  const file = path.join(root, name);
  fs.writeFileSync(file, data);
  return { kind: 'file', filename: name, path: file, mime, size: fs.statSync(file).size, is_image: mime.startsWith('image/') };
}
const summaryOf = async (a: ChatAttachment, chars = 200_000) => (await readAttachment(a, new Budget(chars), { roots: [root] })).summary;

describe('what each reader says the agent gets', () => {
  it('a text file: its characters, or where it was cut', async () => {
    const a = upload('notes.txt', 'x'.repeat(12_408), 'text/plain');
    expect(await summaryOf(a)).toEqual({ state: 'ready', text: '12,408 characters of text' });
    expect(await summaryOf(a, 1000)).toEqual({ state: 'partial', text: 'cut at 1,000 of 12,408 characters' });
  });

  it('a Windows-1252 file says its encoding', async () => {
    const a = upload('prices.csv', Buffer.from('caf\xe9;2\u20ac\n'.replace('\u20ac', '\x80'), 'latin1'), 'text/csv');
    expect(await summaryOf(a)).toEqual({ state: 'ready', text: '8 characters of text (Windows-1252)' });
  });

  it('a corrupt Office document is not readable, with what may be wrong', async () => {
    const a = upload('report.docx', Buffer.from('PK\x03\x04 not really a zip'), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(await summaryOf(a)).toEqual({ state: 'unreadable', text: 'its text could not be extracted: the file may be damaged or encrypted' });
  });

  it('bytes the agent cannot read: only the name goes', async () => {
    const a = upload('blob.bin', Buffer.from([0, 1, 2, 3, 0, 0, 0xff, 0xfe]));
    expect(await summaryOf(a)).toEqual({ state: 'unreadable', text: '8 bytes the agent cannot read: only its name is sent' });
  });

  it('a file outside the attachment folder is not readable', async () => {
    const outside = path.join(tmp, 'secret.txt');
    fs.writeFileSync(outside, 'no');
    expect(await summaryOf({ kind: 'file', filename: 'secret.txt', path: outside, mime: 'text/plain', size: 2, is_image: false })).toEqual({ state: 'unreadable', text: 'not readable from the attachment folder' });
  });

  it('an extracted archive: its file list and the text files inlined', async () => {
    const folder = path.join(root, 'project');
    fs.mkdirSync(path.join(folder, 'src'), { recursive: true });
    fs.writeFileSync(path.join(folder, 'README.md'), '# hi\n');
    fs.writeFileSync(path.join(folder, 'src', 'main.c'), 'int main(){}\n');
    fs.writeFileSync(path.join(folder, 'logo.bin'), Buffer.from([0, 0, 0, 1]));
    const a = { kind: 'archive', name: 'project.zip', path: folder, extracted: true } as unknown as ChatAttachment;
    expect(await summaryOf(a)).toEqual({ state: 'ready', text: 'file list of 3 files, 2 text files inline' });
    expect(await summaryOf(a, 40)).toEqual({ state: 'partial', text: 'file list of 3 files, cut to fit' });
  });
});
