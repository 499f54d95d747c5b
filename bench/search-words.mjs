// The queries the search benchmarks type (bench/search.mjs, search-store.mjs, search-snippet.mjs,
// mcp-search-all.mjs): the words of the history's corpus (bench/history/corpus.md) by frequency, drawn with a
// seeded generator, so each run of a benchmark types the same queries and two benchmarks with one seed type the
// same ones. A benchmark takes the kinds it reports; each kind draws from the one generator, in call order.
import fs from 'node:fs';

const corpus = fs.readFileSync(new URL('./history/corpus.md', import.meta.url), 'utf8');
const counts = new Map();
for (const w of corpus.toLowerCase().match(/[a-z]{3,}/g)) counts.set(w, (counts.get(w) ?? 0) + 1);
/** The corpus's words of 3 letters or more, the most frequent first (ties in alphabetical order). */
export const byRank = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w);
/** Paragraphs of prose (no code, no heading) of 12 words or more: what a person might type a sentence of. */
const prose = corpus.split('\n\n').filter((b) => !b.startsWith('```') && !b.startsWith('#') && b.split(/\s+/).length >= 12);
/** The words a person searches for: past the 100 commonest, within the 5,000 commonest. */
const RANK_FROM = 100;
const RANK_SPAN = 4_900;
/** The commonest words, cycled through by 'one very common word'. */
const COMMON_WORDS = 8;

/** Query generators by the name the benchmarks report them under, drawing from a generator seeded with `seed`. */
export function searchWords(seed) {
  let state = seed;
  const rand = () => ((state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const ranked = () => byRank[RANK_FROM + Math.floor(rand() * RANK_SPAN)];
  const common = byRank.slice(0, COMMON_WORDS);
  let nextCommon = 0;
  return {
    'two words, rank 100-5,000': () => `${ranked()} ${ranked()}`,
    'two words, the second typed halfway': () => `${ranked()} ${ranked().slice(0, 3)}`,
    'one word, rank 100-5,000': () => ranked(),
    'a typed 9-word sentence': () => {
      const words = prose[Math.floor(rand() * prose.length)].split(/\s+/).filter(Boolean);
      const at = Math.floor(rand() * (words.length - 9));
      return words.slice(at, at + 9).join(' ');
    },
    'one very common word': () => common[nextCommon++ % common.length],
  };
}

/** The kinds named, in that order, from searchWords(seed). */
export function pickWords(seed, names) {
  const all = searchWords(seed);
  return Object.fromEntries(names.map((n) => [n, all[n]]));
}
