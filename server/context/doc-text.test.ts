import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildPdf, textPage } from '../workspace/testing/pdf.js';
import { DOC_PDF_LIMITS, DocTexts } from './doc-text.js';
import { MAX_PDF_TEXT_PAGES } from '../workspace/pdf.js';
import type { ConversationDoc } from './types.js';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-doc-text-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function docOf(name: string, data: string | Buffer, mime = 'text/plain'): ConversationDoc {
  const file = path.join(root, name);
  fs.writeFileSync(file, data);
  return { key: `attachment:${name}`, name, origin: 'attachment', attachment: { kind: 'file', filename: name, path: file, mime, size: fs.statSync(file).size, is_image: false }, uri: `satchel://session/s/attachment/${name}` };
}

describe('DocTexts', () => {
  it("holds a PDF's pages once read, and reads the file again when it changes", async () => {
    const doc = docOf('report.pdf', buildPdf({ pages: [textPage('Revenue rose'), textPage('Warranty five years')] }), 'application/pdf');
    const texts = new DocTexts();
    let told = 0;
    const opts = { roots: [root], onAttachmentText: () => void told++ };
    const first = await texts.get(doc, opts);
    expect(first.kind).toBe('pdf');
    expect(first.parts.filter((p) => p.type === 'text' && p.from.page === 2).map((p) => (p as { text: string }).text).join('')).toContain('Warranty five years');
    expect(await texts.get(doc, opts)).toBe(first);
    expect(told).toBe(1);
    fs.writeFileSync(doc.attachment.path, buildPdf({ pages: [textPage('Changed text')] }));
    const again = await texts.get(doc, opts);
    expect(again).not.toBe(first);
    expect(JSON.stringify(again.parts)).toContain('Changed text');
    expect(told).toBe(2);
  });

  it('tries a document it could not read again on a later turn, at most once per retry interval', async () => {
    const doc = docOf('broken.pdf', '%PDF-1.4\n1 0 obj << broken', 'application/pdf');
    const opts = { roots: [root] };
    const soon = new DocTexts(undefined, undefined, 0);
    const first = await soon.get(doc, opts);
    expect(first.summary.state).toBe('unreadable');
    // Unchanged file, retry interval passed: read again (a failure that passes, like a deadline under load, heals).
    await new Promise((r) => setTimeout(r, 5));
    expect(await soon.get(doc, opts)).not.toBe(first);
    // Within the interval the failure is kept: a hostile file does not cost every turn a read.
    const later = new DocTexts(undefined, undefined, 3_600_000);
    const once = await later.get(doc, opts);
    expect(await later.get(doc, opts)).toBe(once);
  });

  it('keeps the characters it holds within its bound, the least recently used out first', async () => {
    const texts = new DocTexts(2_500, 100);
    const a = docOf('a.txt', 'a'.repeat(1_000));
    const b = docOf('b.txt', 'b'.repeat(1_000));
    const c = docOf('c.txt', 'c'.repeat(1_000));
    const opts = { roots: [root] };
    const ta = await texts.get(a, opts);
    const tb = await texts.get(b, opts);
    expect(await texts.get(a, opts)).toBe(ta);
    await texts.get(c, opts);
    await new Promise((r) => setImmediate(r));
    expect(texts.heldChars).toBeLessThanOrEqual(2_500);
    // b was the least recently used: out, read again; a is still held.
    expect(await texts.get(a, opts)).toBe(ta);
    expect(await texts.get(b, opts)).not.toBe(tb);
  });

  it('once idle for its interval, lets the least recently used go down to what it keeps; a turn in time keeps all', async () => {
    // The clock is the test's (setTimeout and Date only: the reads' file system work runs as it does).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const IDLE_MS = 60_000;
      const texts = new DocTexts(undefined, undefined, undefined, { ms: IDLE_MS, keepChars: 2_500 });
      const opts = { roots: [root] };
      const docs = ['a', 'b', 'c', 'd'].map((n) => docOf(`${n}.txt`, n.repeat(1_000)));
      const read = [];
      for (const d of docs) read.push(await texts.get(d, opts));
      await new Promise((r) => setImmediate(r));
      const all = texts.heldChars;
      expect(all).toBeGreaterThan(4_000);
      // A turn within the interval (a) starts it again: nothing is let go meanwhile.
      vi.advanceTimersByTime(IDLE_MS / 2);
      expect(await texts.get(docs[0]!, opts)).toBe(read[0]);
      vi.advanceTimersByTime(IDLE_MS * 0.75);
      expect(texts.heldChars).toBe(all);
      // Then idle: b and c (the least recently used) go; d and a, the latest, stay and are not read again.
      vi.advanceTimersByTime(IDLE_MS);
      expect(texts.heldChars).toBe(all / 2);
      expect(await texts.get(docs[0]!, opts)).toBe(read[0]);
      expect(await texts.get(docs[3]!, opts)).toBe(read[3]);
      expect(await texts.get(docs[1]!, opts)).not.toBe(read[1]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('says a file that is gone is unreadable, and a dry read is not kept', async () => {
    const texts = new DocTexts();
    const gone = docOf('gone.txt', 'x');
    fs.rmSync(gone.attachment.path);
    expect((await texts.get(gone, { roots: [root] })).summary.state).toBe('unreadable');
    const dry = docOf('d.txt', 'hello');
    await texts.get(dry, { roots: [root] }, { dry: true });
    expect(texts.heldChars).toBe(0);
  });

  it(`reads a PDF past the preview's first ${MAX_PDF_TEXT_PAGES} pages, so a question about a late page can find it`, async () => {
    const pages = Array.from({ length: MAX_PDF_TEXT_PAGES + 10 }, (_, i) => textPage(`Handbook page ${i + 1} says item ${i + 1}`));
    const doc = docOf('handbook.pdf', buildPdf({ pages }), 'application/pdf');
    const got = await new DocTexts().get(doc, { roots: [root] });
    const page58 = got.parts.filter((p) => p.type === 'text' && p.from.page === 58).map((p) => (p as { text: string }).text).join('');
    expect(page58).toContain('Handbook page 58 says item 58');
    expect(JSON.stringify(got.parts)).not.toContain('not read');
    expect(DOC_PDF_LIMITS.pages).toBeGreaterThan(MAX_PDF_TEXT_PAGES);
  });
});
