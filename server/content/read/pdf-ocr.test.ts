// A scanned PDF reaches the agent as its recognized text (issue 25, finding 6): the page image wrapped by img2pdf,
// the tool scans are commonly made into PDFs with, and by hand (server/ocr/testing/render.ts) where it is absent.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatAttachment } from '../../core/wire.js';
import { prose, renderPage, scannedPdf, wordRecall } from '../../ocr/testing/render.js';
import { Budget, readAttachment } from '../index.js';
import { FIXTURES } from '../testing/pdf-tools.js';

// OCR reads a page in 1-3 s of CPU; a shared, loaded machine takes many times that.
const SLOW = 180_000;
const IMG2PDF = existsSync('/usr/bin/img2pdf') ? '/usr/bin/img2pdf' : null;

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-pdf-ocr-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function attach(name: string, bytes: Buffer): ChatAttachment {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, bytes);
  return { kind: 'file', filename: name, path: file, mime: 'application/pdf', size: bytes.length, is_image: false };
}
const texts = (parts: { type: string; text?: string }[]) => parts.map((p) => p.text ?? '').join('\n');

describe('a scanned PDF', () => {
  it.skipIf(!IMG2PDF)('made by img2pdf: the agent gets the page recognized, marked as OCR, and the chip says so', async () => {
    const page = await renderPage(prose(60, 0), { points: 12, dpi: 150 });
    const png = path.join(tmp, 'page.png');
    fs.writeFileSync(png, page.png);
    execFileSync(IMG2PDF!, [png, '-o', path.join(tmp, 'scan.pdf')]);
    const a: ChatAttachment = { kind: 'file', filename: 'scan.pdf', path: path.join(tmp, 'scan.pdf'), mime: 'application/pdf', size: fs.statSync(path.join(tmp, 'scan.pdf')).size, is_image: false };
    const seen: string[] = [];
    const read = await readAttachment(a, new Budget(200_000), { roots: [tmp], onAttachmentText: (_p, t) => seen.push(t) });
    const text = texts(read.parts);
    expect(text.split('\n').slice(0, 2)).toEqual(['Attached PDF "scan.pdf" (1 page):', '--- Page 1 (recognized by on-device OCR) ---']);
    expect(wordRecall(page.text, text)).toBeGreaterThanOrEqual(0.95);
    expect(read.summary.state).toBe('ready');
    expect(read.summary.text).toMatch(/^1 page, [\d,]+ characters of text, the page recognized by OCR$/);
    // The search index gets the recognized words too.
    expect(seen.join('')).toContain('quarterly');
  }, SLOW);
  if (!IMG2PDF) it('made by img2pdf', () => console.log('skipped: img2pdf is not installed (apt-get install img2pdf); the hand-made scan below still runs'));

  it('a text page and a scanned page: the text as it is, the scan recognized; a page OCR finds nothing on stays without text', async () => {
    const scan = await renderPage(prose(40, 200), { points: 12, dpi: 150 });
    const read = await readAttachment(attach('scan.pdf', await scannedPdf([{ kind: 'jpeg', png: scan.png }])), new Budget(200_000), { roots: [tmp] });
    expect(texts(read.parts)).toContain('--- Page 1 (recognized by on-device OCR) ---');
    expect(wordRecall(scan.text, texts(read.parts))).toBeGreaterThanOrEqual(0.95);
    // The committed memo: page 1 has text, page 2 only a checkerboard picture, where OCR finds no words.
    const memo = await readAttachment(attach('memo.pdf', fs.readFileSync(path.join(FIXTURES, 'memo-scan.pdf'))), new Budget(200_000), { roots: [tmp] });
    expect(texts(memo.parts)).toContain('--- Page 1 ---\nQuarterly memo');
    expect(texts(memo.parts)).toContain('--- Page 2 ---\n[no text on this page]');
    expect(memo.summary).toEqual({ state: 'partial', text: '1 of 2 pages have no text (scanned?)' });
  }, SLOW);
});
