// A PDF's text reaches the agent page by page (each part says its page) and, joined, is exactly the text MCP
// returns, wherever the budget cuts it: at the start, inside a page, on the newline between two.
import { describe, expect, it } from 'vitest';
import { contentParts } from '../../agent/content-parts.js';
import { Budget } from './budget.js';
import { pdfAgentText } from './pdf.js';

const READ = { pages: 3, pageTexts: ['alpha beta', '', 'gamma'], pagesWithoutText: [2] };
const unreadable = (why: string) => why;

describe('pdfAgentText pieces', () => {
  it('one piece per page, with its number, and the header and notes without one', () => {
    const got = pdfAgentText({ ...READ, pages: 5 }, 'memo.pdf', new Budget(10_000), unreadable);
    expect(got.pieces).toEqual([
      { text: 'Attached PDF "memo.pdf" (5 pages):' },
      { text: '--- Page 1 ---\nalpha beta', page: 1 },
      { text: '--- Page 2 ---\n[no text on this page]', page: 2 },
      { text: '--- Page 3 ---\ngamma', page: 3 },
      { text: '[… 2 more pages of memo.pdf not read: only the first 50 pages are read]' },
    ]);
  });

  it('joined by newlines, the pieces are the text, at every budget', () => {
    const whole = pdfAgentText(READ, 'memo.pdf', new Budget(10_000), unreadable).whole!;
    for (let left = 0; left <= whole.length + 1; left++) {
      const got = pdfAgentText(READ, 'memo.pdf', new Budget(left), unreadable);
      expect(got.pieces.map((p) => p.text).join('\n'), `budget ${left}`).toBe(got.text);
      const parts = got.pieces.map((p) => ({ type: 'text' as const, text: p.text, from: p.page === undefined ? { file: 'memo.pdf' } : { file: 'memo.pdf', page: p.page } }));
      // As the turn sends it: one part, the same text.
      expect(contentParts(parts), `budget ${left}`).toEqual([{ type: 'text', text: got.text }]);
    }
  });

  it('a cut inside page 2 keeps page 1 whole, page 2 in part, and says what is missing', () => {
    const got = pdfAgentText(READ, 'memo.pdf', new Budget(36), unreadable);
    expect(got.pieces.map((p) => p.page)).toEqual([undefined, 1, 2, undefined]);
    expect(got.pieces[2]!.text).toBe('--- Page 2');
    expect(got.pieces[3]!.text).toMatch(/^\[… truncated: \d+ more characters of memo\.pdf\]$/);
  });
});
