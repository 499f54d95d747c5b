// A file stored decompressed from a `.gz` (attachments/gunzip-upload.ts) is named to the agent, and on its chip,
// with the `.gz` the person dropped.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ChatAttachment } from '../../core/wire.js';
import { Budget, readAttachment } from '../index.js';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-gz-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function stored(name: string, text: string | Buffer, from?: string): ChatAttachment {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, text);
  return { kind: 'file', filename: name, path: file, mime: 'text/plain', size: fs.statSync(file).size, is_image: false, ...(from ? { decompressed_from: from } : {}) };
}

it('headed and summarized with the .gz it was decompressed from', async () => {
  const log = 'GET / 200\n'.repeat(412);
  const read = await readAttachment(stored('server.log', log, 'server.log.gz'), new Budget(200_000), { roots: [tmp] });
  expect(read.parts).toEqual([{ type: 'text', text: `Attached file "server.log" (decompressed from server.log.gz):\n${log}`, from: { file: 'server.log' } }]);
  expect(read.summary).toEqual({ state: 'ready', text: '4,120 characters of text, decompressed from server.log.gz' });
});

it('cut, and in a legacy encoding: both said', async () => {
  const read = await readAttachment(stored('prices.csv', Buffer.from('caf\xe9;2\n'.repeat(100), 'latin1'), 'prices.csv.gz'), new Budget(10), { roots: [tmp] });
  expect((read.parts[0] as { text: string }).text.split('\n')[0]).toBe('Attached file "prices.csv" (text, ISO-8859-1, decompressed from prices.csv.gz):');
  expect(read.summary).toEqual({ state: 'partial', text: 'cut at 10 of 700 characters, decompressed from prices.csv.gz' });
});

it('a file not decompressed is headed as before', async () => {
  const read = await readAttachment(stored('notes.txt', 'hello\n'), new Budget(200_000), { roots: [tmp] });
  expect(read.parts).toEqual([{ type: 'text', text: 'Attached file "notes.txt":\nhello\n', from: { file: 'notes.txt' } }]);
});
