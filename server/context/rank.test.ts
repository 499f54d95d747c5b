import { describe, expect, it } from 'vitest';
import { rankPassages, words } from './rank.js';
import type { Passage } from './types.js';

let seq = 0;
const p = (text: string, over: Partial<Passage> = {}): Passage => ({ key: 'k', name: 'r.pdf', text, seq: seq++, ...over });

describe('words', () => {
  it('folds case and accents, keeps Unicode letters and digits, drops stop words', () => {
    expect(words('What did the Résumé say about NAÏVE café 2024, Москва?')).toEqual(['resume', 'naive', 'cafe', '2024', 'москва']);
  });
});

describe('rankPassages', () => {
  const passages = [
    p('The quarterly revenue of the company rose by twelve percent.', { page: 1 }),
    p('Warranty: the pump is covered for five years from delivery.', { page: 2 }),
    p('Revenue revenue revenue in the appendix table.', { page: 3 }),
    p('Contact the café in Zürich for deliveries.', { page: 4 }),
  ];

  it('puts the passage that answers first', () => {
    expect(rankPassages(passages, 'How long is the warranty on the pump?', 1)[0]!.page).toBe(2);
    expect(rankPassages(passages, 'cafe zurich', 1)[0]!.page).toBe(4);
  });

  it('ranks a passage of the page the question names above word matches elsewhere', () => {
    expect(rankPassages(passages, 'what did page 2 say about revenue?', 1)[0]!.page).toBe(2);
    expect(rankPassages(passages, 'summarize pp. 3-4', 2).map((x) => x.page).sort()).toEqual([3, 4]);
  });

  it('keeps the given order for ties and for a question of no words, and honours the limit', () => {
    expect(rankPassages(passages, 'and the of?', 10).map((x) => x.page)).toEqual([1, 2, 3, 4]);
    expect(rankPassages(passages, 'revenue', 0)).toEqual([]);
    expect(rankPassages(passages, 'revenue', 2)).toHaveLength(2);
  });
});
