// A PDF reaches the agent as its text, page by page (issue 25). The always-run cases read the committed fixtures
// (memo-scan.pdf written by Ghostscript's ps2pdf 10.0.0, memo-encrypted.pdf by qpdf 11.3.0 from it: see
// testing/pdf-tools.ts); the rest make their PDFs with those tools in a temporary folder, and skip saying why
// where a tool is missing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { contentParts, MAX_TEXT_PART_CHARS } from '../../agent/content-parts.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatAttachment } from '../../core/wire.js';
import { MAX_PDF_BYTES, MAX_PDF_TEXT_PAGES, PDF_ENCRYPTED, PDF_TIMED_OUT, PDF_TOO_MUCH_MEMORY, summarizePdf } from '../../workspace/pdf.js';
import { Budget, readAttachment } from '../index.js';
import { pdfAgentText } from './pdf.js';
import { FIXTURES, MEMO_PAGES, PS2PDF, PS2PDF_MISSING, ps2pdf, QPDF, QPDF_MISSING, qpdfEncrypt, type PsPage } from '../testing/pdf-tools.js';
import { uriOfPath } from '../../core/satchel-uri.js';

// A 50-page document read by pdf.js in-thread, and Ghostscript writing it, on a loaded shared machine.
const LONG_TIMEOUT_MS = 60_000;

let tmp: string;
let root: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-read-pdf-'));
  root = path.join(tmp, 'attachments');
  fs.mkdirSync(root);
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function attach(name: string, data: Buffer | string, mime = 'application/pdf'): ChatAttachment & { size: number } {
  const file = path.join(root, name);
  fs.writeFileSync(file, data);
  return { kind: 'file', filename: name, path: file, mime, size: fs.statSync(file).size, is_image: false };
}
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name));

/** What the agent gets for `a` (its one text part, the pages' parts joined), what the chip says, and what the
 *  search index was told. */
async function read(a: ChatAttachment, chars = 200_000) {
  const indexed: [string, string][] = [];
  const got = await readAttachment(a, new Budget(chars), { roots: [root], onAttachmentText: (p, t) => indexed.push([p, t]), agentUri: uriOfPath('s1', root) });
  // One document's text goes as text parts of at most MAX_TEXT_PART_CHARS each (Hermes' gateway cuts a longer
  // part): joined, they are the document as the agent reads it.
  const sent = contentParts(got.parts);
  expect(sent.every((p) => p.type === 'text' && p.text.length <= MAX_TEXT_PART_CHARS)).toBe(true);
  return { text: sent.map((p) => (p.type === 'text' ? p.text : '')).join(''), summary: got.summary, indexed };
}

const MEMO_TEXT = ['Attached PDF "memo.pdf" (2 pages):', '--- Page 1 ---', 'Quarterly memo', 'Revenue rose by 12 percent.', '--- Page 2 ---', '[no text on this page]'].join('\n');
const MEMO_WHOLE = MEMO_TEXT.slice(MEMO_TEXT.indexOf('\n') + 1);

describe('a PDF attachment as the agent gets it (committed fixtures)', () => {
  it('a two-page PDF with one image-only page: its text under page markers, the empty page said, partial', async () => {
    const a = attach('memo.pdf', fixture('memo-scan.pdf'));
    const got = await read(a);
    expect(got.text).toBe(MEMO_TEXT);
    expect(got.summary).toEqual({ state: 'partial', text: '1 of 2 pages have no text (scanned?)' });
    // The search index gets the pages' whole text, named by the attachment's path.
    expect(got.indexed).toEqual([[a.path, MEMO_WHOLE]]);
  });

  it('is recognized by its bytes, not its name', async () => {
    const got = await read(attach('memo.bin', fixture('memo-scan.pdf'), 'application/octet-stream'));
    expect(got.text).toBe(MEMO_TEXT.replace('"memo.pdf"', '"memo.bin"'));
    // A text file named .pdf is text.
    expect((await read(attach('notes.pdf', 'just words\n'))).summary).toEqual({ state: 'ready', text: '11 characters of text' });
  });

  it("is cut at the turn's budget with a marker naming the file", async () => {
    const got = await read(attach('memo.pdf', fixture('memo-scan.pdf')), 30);
    const kept = MEMO_WHOLE.slice(0, 30);
    expect(got.text).toBe(`Attached PDF "memo.pdf" (2 pages):\n${kept}\n[… truncated: ${MEMO_WHOLE.length - 30} more characters of memo.pdf]`);
    expect(got.summary).toEqual({ state: 'partial', text: `1 of 2 pages have no text (scanned?), cut at 30 of ${MEMO_WHOLE.length} characters` });
  });

  it('an encrypted PDF: not readable, with what to do', async () => {
    const a = attach('memo.pdf', fixture('memo-encrypted.pdf'));
    const got = await read(a);
    expect(got.summary).toEqual({ state: 'unreadable', text: 'encrypted: remove the password and attach it again' });
    expect(got.text).toBe(
      `[Attached file "memo.pdf" (application/pdf, ${a.size} bytes), stored as satchel://session/s1/attachment/memo.pdf; its text could not be read: encrypted: remove the password and attach it again]`,
    );
    expect(got.indexed).toEqual([]);
  });

  it("the preview reads the same document: its text and a note, never the agent's page list", async () => {
    expect(await summarizePdf(fixture('memo-scan.pdf'))).toEqual({ pages: 2, text: 'Quarterly memo\nRevenue rose by 12 percent.', truncated: false });
    expect(await summarizePdf(fixture('memo-encrypted.pdf'))).toEqual({ note: PDF_ENCRYPTED });
  });

  it('a damaged PDF (its second half lost): not readable, with what to do', async () => {
    const whole = fixture('memo-scan.pdf');
    const got = await read(attach('memo.pdf', whole.subarray(0, whole.length / 2)));
    expect(got.summary).toEqual({ state: 'unreadable', text: 'damaged: it could not be read; save it again from the program that made it and attach it again' });
    expect(got.text).toContain('its text could not be read: damaged');
  });

  it(`a PDF over ${MAX_PDF_BYTES / 1024 / 1024} MiB is not read, and the chip says why`, async () => {
    const big = Buffer.alloc(MAX_PDF_BYTES + 1, 0x20);
    big.write('%PDF-1.7\n');
    const got = await read(attach('huge.pdf', big));
    expect(got.summary).toEqual({ state: 'unreadable', text: 'larger than 32 MiB: split it or attach its pages as smaller PDFs' });
  });

  it("the worker's notes for a document that took too long or too much memory", () => {
    const said = (note: string) => pdfAgentText({ note }, 'slow.pdf', new Budget(1000), (s) => `[only named: ${s}]`);
    expect(said(PDF_TIMED_OUT)).toEqual({
      text: '[only named: took too long to read (over 15 s): save it again (print to PDF) and attach it again]',
      pieces: [{ text: '[only named: took too long to read (over 15 s): save it again (print to PDF) and attach it again]' }],
      summary: { state: 'unreadable', text: 'took too long to read (over 15 s): save it again (print to PDF) and attach it again' },
      pagesWithoutText: [],
    });
    expect(said(PDF_TOO_MUCH_MEMORY).summary).toEqual({ state: 'unreadable', text: 'needed over 512 MiB of memory to read: save it again (print to PDF) and attach it again' });
  });
});

const lines = (page: number, n: number, width = 0) => Array.from({ length: n }, (_, i) => `Page ${page} line ${i + 1}`.padEnd(width, '.'));

describe.skipIf(!PS2PDF)('PDFs written by ps2pdf now', () => {
  if (!PS2PDF) console.log(`skipped: ${PS2PDF_MISSING}`);

  it('three pages of text: ready, with its page and character counts', async () => {
    const pages: PsPage[] = [lines(1, 2), lines(2, 1), lines(3, 3)];
    const got = await read(attach('report.pdf', fs.readFileSync(await ps2pdf(tmp, 'report.pdf', pages))));
    const whole = (pages as string[][]).map((p, i) => `--- Page ${i + 1} ---\n${p.join('\n')}`).join('\n');
    expect(got.text).toBe(`Attached PDF "report.pdf" (3 pages):\n${whole}`);
    expect(got.summary).toEqual({ state: 'ready', text: `3 pages, ${whole.length} characters of text` });
  });

  it('a scanned PDF (every page a picture): not readable, "no text"', async () => {
    const got = await read(attach('scan.pdf', fs.readFileSync(await ps2pdf(tmp, 'scan.pdf', ['picture', 'picture']))));
    expect(got.summary).toEqual({ state: 'unreadable', text: 'no text: scanned pages are images' });
  });

  it(
    `pages past the first ${MAX_PDF_TEXT_PAGES} are counted in a visible line`,
    async () => {
      const pages: PsPage[] = Array.from({ length: MAX_PDF_TEXT_PAGES + 3 }, (_, i) => lines(i + 1, 1));
      const got = await read(attach('long.pdf', fs.readFileSync(await ps2pdf(tmp, 'long.pdf', pages))));
      expect(got.text.startsWith('Attached PDF "long.pdf" (53 pages):\n--- Page 1 ---\nPage 1 line 1\n--- Page 2 ---\n')).toBe(true);
      expect(got.text).toContain('--- Page 50 ---\nPage 50 line 1\n[… 3 more pages of long.pdf not read: only the first 50 pages are read]');
      expect(got.text).not.toContain('Page 51');
      expect(got.summary).toEqual({ state: 'partial', text: 'first 50 of 53 pages' });
    },
    LONG_TIMEOUT_MS,
  );

  it(
    'a text longer than the reader keeps is cut at 200,000 characters, and the pages not read are counted',
    async () => {
      // 50 lines of 100 characters a page: about the 41st page passes 200,000.
      const pages: PsPage[] = Array.from({ length: 45 }, (_, i) => lines(i + 1, 50, 100));
      const got = await read(attach('dense.pdf', fs.readFileSync(await ps2pdf(tmp, 'dense.pdf', pages))), 300_000);
      expect(got.summary).toEqual({ state: 'partial', text: 'cut at 200,000 characters' });
      const unread = /\n?\[… (\d+) more pages of dense\.pdf not read: the text stops at 200,000 characters\]$/.exec(got.text);
      expect(unread).not.toBeNull();
      const lastRead = 45 - Number(unread![1]);
      expect(lastRead).toBeGreaterThan(35);
      expect(got.text).toContain(`--- Page ${lastRead} ---\n`);
      expect(got.text).not.toContain(`--- Page ${lastRead + 1} ---`);
      const [[, whole]] = got.indexed as [[string, string]];
      expect(whole.replace(/--- Page \d+ ---\n/g, '').replace(/\n/g, '').length).toBeLessThanOrEqual(200_000);
    },
    LONG_TIMEOUT_MS,
  );
});

describe.skipIf(!PS2PDF || !QPDF)('a PDF encrypted by qpdf now', () => {
  if (!PS2PDF || !QPDF) console.log(`skipped: ${!PS2PDF ? PS2PDF_MISSING : QPDF_MISSING}`);

  it('is not readable, and says so', async () => {
    const plain = await ps2pdf(tmp, 'plain.pdf', MEMO_PAGES);
    const locked = await qpdfEncrypt(plain, path.join(tmp, 'locked.pdf'));
    expect((await read(attach('locked.pdf', fs.readFileSync(locked)))).summary).toEqual({ state: 'unreadable', text: 'encrypted: remove the password and attach it again' });
  });
});
