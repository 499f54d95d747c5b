// Passages ranked against the person's new message (issue 36): Okapi BM25 over Unicode words, folded for case
// and accents, without a few words every question has. Pure and in memory: each passage's term counts are made
// once (a WeakMap on the passage, which passages.ts itself keeps per document text), so a turn over twenty
// documents ranks thousands of passages in a few milliseconds.
import type { Passage } from './types.js';

/** BM25's term-frequency saturation and length normalization: the usual values, which suit ~1,000-char passages. */
const K1 = 1.2;
const B = 0.75;

/**
 * Added to a passage of the page, slide or sheet the message names ("what did page 2 say?"): the question is
 * about that place whatever its words are, so it outranks any match of words elsewhere.
 */
const NAMED_PLACE_BOOST = 100;

/** Words too common in questions to say what is asked (English; a question in another language just ranks with them). */
const STOP = new Set(
  'a an and are as at be but by can could did do does for from had has have how i if in into is it its me my no not of on or our say said says so that the their them then there these they this to was we were what when where which who why will with would you your about tell show give document file'.split(' '),
);

/** A text's words: Unicode letters and digits, case- and accent-folded ("Résumé" → "resume"), stop words out. */
export function words(text: string): string[] {
  const folded = text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
  return (folded.match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP.has(w));
}

interface Counted {
  terms: Map<string, number>;
  length: number;
}
const counted = new WeakMap<Passage, Counted>();

function countsOf(p: Passage): Counted {
  let c = counted.get(p);
  if (!c) {
    const terms = new Map<string, number>();
    const ws = words(p.text);
    for (const w of ws) terms.set(w, (terms.get(w) ?? 0) + 1);
    c = { terms, length: ws.length };
    counted.set(p, c);
  }
  return c;
}

/** The pages, slides and sheets a message names: "page 2", "p. 3", "pages 4-5", "slide 7", 'sheet "Q3"'. */
function namedPlaces(query: string): { pages: Set<number>; slides: Set<number>; sheets: Set<string> } {
  const pages = new Set<number>();
  const slides = new Set<number>();
  const sheets = new Set<string>();
  const folded = query.toLowerCase();
  for (const m of folded.matchAll(/\b(pages?|pp?\.|pg\.?|slides?)\s*(\d{1,5})(?:\s*(?:-|–|to|and)\s*(\d{1,5}))?/g)) {
    const from = Number(m[2]);
    const to = m[3] === undefined ? from : Math.min(Number(m[3]), from + 50);
    for (let n = from; n <= to; n++) (m[1]!.startsWith('s') ? slides : pages).add(n);
  }
  for (const m of folded.matchAll(/\bsheet\s+["“']?([^"”'?,.]+)/g)) sheets.add(m[1]!.trim());
  return { pages, slides, sheets };
}

/** The `limit` passages that best answer `query`, best first; ties (and a query of no words) keep the given order. */
export function rankPassages(passages: readonly Passage[], query: string, limit: number): Passage[] {
  if (limit <= 0 || passages.length === 0) return [];
  const terms = [...new Set(words(query))];
  const places = namedPlaces(query);
  const n = passages.length;
  let total = 0;
  const df = new Map<string, number>(terms.map((t) => [t, 0]));
  for (const p of passages) {
    const c = countsOf(p);
    total += c.length;
    for (const t of terms) if (c.terms.has(t)) df.set(t, df.get(t)! + 1);
  }
  const avg = total / n || 1;
  const idf = new Map(terms.map((t) => [t, Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5))]));
  const scored = passages.map((p, i) => {
    const c = countsOf(p);
    let score = 0;
    for (const t of terms) {
      const f = c.terms.get(t);
      if (f) score += (idf.get(t)! * f * (K1 + 1)) / (f + K1 * (1 - B + (B * c.length) / avg));
    }
    if ((p.page !== undefined && places.pages.has(p.page)) || (p.slide !== undefined && places.slides.has(p.slide))) score += NAMED_PLACE_BOOST;
    if (p.sheet !== undefined && places.sheets.has(p.sheet.toLowerCase())) score += NAMED_PLACE_BOOST;
    return { p, i, score };
  });
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  return scored.slice(0, limit).map((s) => s.p);
}
