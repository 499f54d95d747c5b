import { describe, expect, it } from 'vitest';
import { choosePassages, leftOutNote, MIN_PASSAGE_CHARS, passageReserve, PASSAGES_HEADING, passageText, summaryOf } from './plan.js';
import type { Candidate } from './plan.js';

const candidate = (name: string, pages: string[]): Candidate => ({
  doc: { key: `attachment:${name}`, name, origin: 'attachment', attachment: { kind: 'file', filename: name, path: `/x/${name}`, size: 1, mime: '', is_image: false }, uri: '' },
  text: { parts: pages.map((text, i) => ({ type: 'text' as const, text: `--- Page ${i + 1} ---\n${text}`, from: { file: name, page: i + 1 } })), chars: 0, summary: { state: 'ready', text: '' } },
});

describe('passageReserve', () => {
  it('keeps a quarter of what is left, at least MIN_PASSAGE_CHARS, never more than there is', () => {
    expect(passageReserve(100_000)).toBe(25_000);
    expect(passageReserve(10_000)).toBe(MIN_PASSAGE_CHARS);
    expect(passageReserve(1_000)).toBe(1_000);
  });
});

describe('choosePassages', () => {
  const docs = [candidate('a.pdf', ['apples are red', 'the pump warranty is seven years']), candidate('b.pdf', ['pump seals wear out', 'nothing here'])];

  it('takes the best first while they fit, and sends them in document order with where they are from', () => {
    const best = '--- "a.pdf", page 2 ---\nthe pump warranty is seven years';
    // Room for the heading and the best one; the next best ("pump seals wear out") would need 30 more.
    const got = choosePassages(docs, 'pump warranty', PASSAGES_HEADING.length + 1 + best.length + 2 + 20);
    expect(got.passages.map((p) => [p.name, p.page])).toEqual([['a.pdf', 2]]);
    expect(got.where).toEqual(new Map([['attachment:a.pdf', 'page 2']]));
    const more = choosePassages(docs, 'pump warranty', 10_000);
    expect(more.passages.map((p) => [p.name, p.page])).toEqual([['a.pdf', 1], ['a.pdf', 2], ['b.pdf', 1], ['b.pdf', 2]]);
    expect(more.used).toBe(PASSAGES_HEADING.length + 1 + more.passages.reduce((n, p) => n + passageText(p).length + 2, 0));
  });

  it('takes nothing when not even the heading fits', () => {
    expect(choosePassages(docs, 'pump', 50)).toEqual({ passages: [], used: 0, where: new Map() });
  });
});

describe('the words', () => {
  it('names what was left out and what cannot be read', () => {
    expect(leftOutNote(['a.pdf', 'b.docx'], [{ name: 'c.bin', reason: 'binary' }])).toBe(
      '[Not sent in this turn (no room left in the message budget): "a.pdf", "b.docx". They are still part of this conversation; ask about one by its name.]\n[Cannot be read: "c.bin" — binary]',
    );
    expect(leftOutNote([], [])).toBe('');
  });

  it('says how many documents the agent has whole', () => {
    const d = (state: 'whole' | 'passages') => ({ name: 'x', origin: 'attachment' as const, state });
    expect(summaryOf([d('whole'), d('passages'), d('whole')])).toBe('The agent has 2 of 3 documents whole');
    expect(summaryOf([d('whole')])).toBe('The agent has the one document whole');
    expect(summaryOf([d('whole'), d('whole')])).toBe('The agent has both documents whole');
    expect(summaryOf([d('whole'), d('whole'), d('whole'), d('whole')])).toBe('The agent has all 4 documents whole');
    expect(summaryOf([d('whole'), d('whole')], 1)).toBe('The agent has 2 of 3 documents whole');
    expect(summaryOf([])).toBe('No documents in this conversation');
  });
});
