import { describe, expect, it } from 'vitest';
import type { Part } from '../content/index.js';
import { chunks, MAX_PASSAGE_CHARS, passageLabel, passagesOf, whereOf } from './passages.js';
import type { ConversationDoc, DocText, Passage } from './types.js';

const doc = (name: string): ConversationDoc => ({ key: `attachment:${name}`, name, origin: 'attachment', attachment: { kind: 'file', filename: name, path: `/x/${name}`, size: 1, mime: '', is_image: false }, uri: `satchel://session/s/attachment/${name}` });
const text = (parts: Part[]): DocText => ({ parts, chars: 0, summary: { state: 'ready', text: '' } });
const p = (over: Partial<Passage>): Passage => ({ key: 'k', name: 'report.pdf', text: 't', seq: 0, ...over });

describe('passagesOf', () => {
  it("cuts a PDF by page, without the page markers, the empty pages and the reader's header", () => {
    const parts: Part[] = [
      { type: 'text', text: 'Attached PDF "report.pdf" (3 pages):', from: { file: 'report.pdf' } },
      { type: 'text', text: '--- Page 1 ---\nRevenue rose.', from: { file: 'report.pdf', page: 1 } },
      { type: 'text', text: '--- Page 2 (recognized by on-device OCR) ---\nThe warranty lasts five years.', from: { file: 'report.pdf', page: 2 } },
      { type: 'text', text: '--- Page 3 ---\n[no text on this page]', from: { file: 'report.pdf', page: 3 } },
    ];
    const got = passagesOf(doc('report.pdf'), text(parts));
    expect(got.map((x) => [x.page, x.text])).toEqual([
      [1, 'Revenue rose.'],
      [2, 'The warranty lasts five years.'],
    ]);
    expect(got.map((x) => x.seq)).toEqual([0, 1]);
    expect(passageLabel(got[1]!)).toBe('"report.pdf", page 2');
  });

  it('cuts a deck by slide, a workbook by sheet, a document by section, an archive by member', () => {
    const deck = passagesOf(doc('deck.pptx'), text([{ type: 'text', text: 'Attached document "deck.pptx":\n## Slide 1: Plan\n- a\n\n## Slide 2\n- b', from: { file: 'deck.pptx' } }]));
    expect(deck.filter((x) => x.slide).map((x) => [x.slide, passageLabel(x)])).toEqual([[1, '"deck.pptx", slide 1'], [2, '"deck.pptx", slide 2']]);
    const book = passagesOf(doc('q.xlsx'), text([{ type: 'text', text: '## Q3\n| a | b |\n### Table1\n| c |\n## Q4\n| d |', from: { file: 'q.xlsx' } }]));
    expect(book.map((x) => [x.sheet, x.text.includes('Table1')])).toEqual([['Q3', true], ['Q4', false]]);
    const memo = passagesOf(doc('memo.docx'), text([{ type: 'text', text: '# Terms\nPay in 30 days.\n# Scope\nAll of it.', from: { file: 'memo.docx' } }]));
    expect(memo.map(passageLabel)).toEqual(['"memo.docx", section "Terms"', '"memo.docx", section "Scope"']);
    const zip = passagesOf(doc('notes.zip'), text([{ type: 'text', text: 'list', from: { file: 'notes.zip' } }, { type: 'text', text: '--- a/b.txt ---\nhello', from: { file: 'notes.zip', member: 'a/b.txt' } }]));
    expect(passageLabel(zip[1]!)).toBe('"notes.zip", a/b.txt');
  });

  it('keeps every passage within MAX_PASSAGE_CHARS, whole paragraphs together, and loses no word', () => {
    const paras = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} ` + 'word '.repeat(20 + i * 7).trim());
    const long = 'x'.repeat(MAX_PASSAGE_CHARS * 2 + 10);
    const body = [...paras, long].join('\n\n');
    const got = chunks(body);
    for (const c of got) expect(c.length).toBeLessThanOrEqual(MAX_PASSAGE_CHARS);
    expect(got.join(' ').replace(/\s+/g, '')).toBe(body.replace(/\s+/g, ''));
    // Paragraph 3 is never split across two passages.
    expect(got.filter((c) => c.includes('Paragraph 3 ')).length).toBe(1);
    expect(got.find((c) => c.includes('Paragraph 3 '))).toContain(paras[3]);
  });

  it("cuts a long table into whole rows, each piece under the table's header row", () => {
    const rows = Array.from({ length: 80 }, (_, i) => `| pkg-${i} | 1.${i}.0 | MIT | Does thing number ${i} well. |`);
    const table = ['| name | version | license | description |', '| --- | --- | --- | --- |', ...rows].join('\n');
    const got = chunks(`## packages\n\n${table}`);
    expect(got.length).toBeGreaterThan(2);
    for (const c of got) expect(c.length).toBeLessThanOrEqual(MAX_PASSAGE_CHARS);
    for (const c of got) expect(c).toContain('| name | version | license | description |\n| --- | --- | --- | --- |\n| pkg-');
    expect(got[0]).toMatch(/^## packages\n\n\| name /);
    // Every row once, none cut, in order.
    const sent = got.flatMap((c) => c.split('\n').filter((l) => l.startsWith('| pkg-')));
    expect(sent).toEqual(rows);
    // Not a table (no separator under the first line): cut as lines, nothing repeated.
    const plain = Array.from({ length: 80 }, (_, i) => `| row ${i} | text text text text |`).join('\n');
    expect(chunks(plain).join('\n')).toBe(plain);
  });

  it('makes passages once per document text', () => {
    const t = text([{ type: 'text', text: 'hello', from: { file: 'a.txt' } }]);
    expect(passagesOf(doc('a.txt'), t)).toBe(passagesOf(doc('a.txt'), t));
  });
});

describe('whereOf', () => {
  it('says pages as runs, slides, sheets, members and sections', () => {
    expect(whereOf([p({ page: 3 }), p({ page: 2 }), p({ page: 2 })])).toBe('pages 2–3');
    expect(whereOf([p({ page: 2 })])).toBe('page 2');
    expect(whereOf([p({ page: 1 }), p({ page: 5 }), p({ page: 6 })])).toBe('pages 1, 5–6');
    expect(whereOf([p({ slide: 4 })])).toBe('slide 4');
    expect(whereOf([p({ sheet: 'Q3' })])).toBe('sheet "Q3"');
    expect(whereOf([p({ member: 'a/b.txt' }), p({ member: 'c.txt' })])).toBe('2 files');
    expect(whereOf([p({ member: 'a/b.txt' })])).toBe('a/b.txt');
    expect(whereOf([p({ section: 'Terms' }), p({ section: 'Scope' })])).toBe('2 sections');
    expect(whereOf([p({}), p({})])).toBe('2 passages');
  });
});
