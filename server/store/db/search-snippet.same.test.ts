// The snippet scan that reads tokens by character codes and folds only the tokens a phrase is compared with
// (issue 37, finding 7) makes exactly the snippets of the one before it, kept below verbatim as the reference
// (search-snippet.ts at 6a95358), over random rows: ASCII and non-ASCII words, marks, surrogate pairs and lone
// surrogates, private-use characters, sentence ends, rows cut and whole, past SNIPPET_MAX_HITS, and queries of
// words from the row, typed halfway, folded differently or absent.
import { describe, expect, it } from 'vitest';
import { SNIPPET_TOKENS } from './search-query.js';
import { queryPhrases, SNIPPET_MAX_HITS, SNIPPET_NO_WORD_CHARS, SNIPPET_SCAN_CHARS, snippetOf, type Phrase, type Snippet } from './search-snippet.js';

// ---- The reference: the scan before this change, verbatim but for its names. ----
interface Token {
  start: number;
  end: number;
  folded: string;
}

const TOKEN = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{Co}\p{Mn}]*/gu;
const ASCII = /^[\x00-\x7f]*$/;
const MARKS = /\p{Mn}/gu;

/** unicode61's folding (remove_diacritics 2): lower case, the marks a letter decomposes into dropped. */
function foldBefore(word: string): string {
  return ASCII.test(word) ? word.toLowerCase() : word.normalize('NFD').replace(MARKS, '').toLowerCase();
}

interface Hit {
  phrase: number;
  pos: number;
  size: number;
}

/** What a row's first characters hold: its tokens up to the last one a window may need, and the first hits. */
interface Scan {
  tokens: Token[];
  hits: Hit[];
  /** Token positions that start a sentence (FTS5: the first, and any after `.` or `:` and a blank). */
  sentences: number[];
  /** Every token of the text was read: the window may end at the text's end. */
  whole: boolean;
}

const BLANK = new Set([' ', '\t', '\n', '\r']);

/** FTS5's sentence finder: a token after `.` or `:` and at least one blank. */
function startsSentence(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && BLANK.has(text[i]!)) i--;
  return i !== at - 1 && i >= 0 && (text[i] === '.' || text[i] === ':');
}

function matchesAt(tokens: readonly Token[], at: number, p: Phrase): boolean {
  for (let k = 0; k < p.tokens.length; k++) {
    const t = tokens[at + k];
    if (!t) return false;
    const last = p.prefix && k === p.tokens.length - 1;
    if (last ? !t.folded.startsWith(p.tokens[k]!) : t.folded !== p.tokens[k]) return false;
  }
  return true;
}

/** Reads `text`'s tokens in order, stopping SNIPPET_TOKENS tokens after the SNIPPET_MAX_HITS-th hit. */
function scan(text: string, phrases: readonly Phrase[], cut: boolean): Scan {
  const tokens: Token[] = [];
  const hits: Hit[] = [];
  const sentences: number[] = [];
  const longest = Math.max(1, ...phrases.map((p) => p.tokens.length));
  // A hit is known once its last token is read: it is checked at a position `longest - 1` tokens back.
  const check = (at: number): void => {
    for (let p = 0; p < phrases.length; p++) {
      if (hits.length >= SNIPPET_MAX_HITS) return;
      if (matchesAt(tokens, at, phrases[p]!)) {
        hits.push({ phrase: p, pos: at, size: phrases[p]!.tokens.length });
        // One phrase per position: FTS5 counts each phrase's hit, but a window's score needs each word once.
      }
    }
  };
  const limit = Math.min(text.length, SNIPPET_SCAN_CHARS);
  let stopAt = Number.POSITIVE_INFINITY;
  let whole = !cut;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
    if (m.index >= limit || tokens.length >= stopAt) {
      whole = false;
      break;
    }
    const pos = tokens.length;
    if (pos === 0 || startsSentence(text, m.index)) sentences.push(pos);
    tokens.push({ start: m.index, end: m.index + m[0].length, folded: foldBefore(m[0]) });
    if (pos - longest + 1 >= 0) check(pos - longest + 1);
    if (hits.length >= SNIPPET_MAX_HITS && stopAt === Number.POSITIVE_INFINITY) stopAt = tokens.length + SNIPPET_TOKENS;
  }
  TOKEN.lastIndex = 0;
  // The last positions, whose phrases may be shorter than the longest.
  for (let at = Math.max(0, tokens.length - longest + 1); at < tokens.length; at++) check(at);
  hits.sort((a, b) => a.pos - b.pos || a.phrase - b.phrase);
  return { tokens, hits, sentences, whole };
}

/** FTS5's fts5SnippetScore: 1000 for each phrase first seen in [from, from + SNIPPET_TOKENS), 1 for a repeat. */
function score(hits: readonly Hit[], from: number, docSize: number): { score: number; start: number } {
  const seen = new Set<number>();
  let total = 0;
  let first = -1;
  let last = 0;
  for (const h of hits) {
    if (h.pos < from || h.pos >= from + SNIPPET_TOKENS) continue;
    total += seen.has(h.phrase) ? 1 : 1000;
    seen.add(h.phrase);
    if (first < 0) first = h.pos;
    last = h.pos + h.size;
  }
  // Centred on the words found, within the text.
  let start = first - Math.trunc((SNIPPET_TOKENS - (last - first)) / 2);
  if (start + SNIPPET_TOKENS > docSize) start = docSize - SNIPPET_TOKENS;
  return { score: total, start: Math.max(0, start) };
}

/** The first token of the window FTS5's snippet() would choose among `hits`. */
function windowStart(s: Scan): number {
  const docSize = s.whole ? s.tokens.length : Number.POSITIVE_INFINITY;
  let best = 0;
  let bestStart = 0;
  for (const h of s.hits) {
    const at = score(s.hits, h.pos, docSize);
    if (at.score > best) {
      best = at.score;
      bestStart = at.start;
    }
    // A window starting at the sentence this hit is in, when the text is longer than a window.
    if (s.sentences.length > 0 && docSize > SNIPPET_TOKENS) {
      let j = 0;
      while (j < s.sentences.length - 1 && s.sentences[j + 1]! <= h.pos) j++;
      const sentence = s.sentences[j]!;
      if (sentence < h.pos) {
        const bonus = score(s.hits, sentence, docSize).score + (sentence === 0 ? 120 : 100);
        if (bonus > best) {
          best = bonus;
          bestStart = sentence;
        }
      }
    }
  }
  return bestStart;
}

function snippetOfBefore(text: string, phrases: readonly Phrase[], cut = false): Snippet {
  const s = scan(text, phrases, cut);
  if (s.tokens.length === 0) {
    const to = Math.min(text.length, SNIPPET_NO_WORD_CHARS);
    return { from: 0, to, marks: [], before: false, after: cut || to < text.length };
  }
  const start = windowStart(s);
  const end = Math.min(start + SNIPPET_TOKENS, s.tokens.length) - 1;
  const toEnd = s.whole && start + SNIPPET_TOKENS >= s.tokens.length;
  const marks: Array<[number, number]> = [];
  // Hits that overlap are marked as one (FTS5's coalesced instances); one that began before the window is not.
  let open: { from: number; to: number } | undefined;
  const close = (): void => {
    if (open) marks.push([s.tokens[open.from]!.start, s.tokens[Math.min(open.to, end)]!.end]);
    open = undefined;
  };
  for (const h of s.hits) {
    if (h.pos < start || h.pos > end) continue;
    const last = h.pos + h.size - 1;
    if (open && h.pos <= open.to) open.to = Math.max(open.to, last);
    else {
      close();
      open = { from: h.pos, to: last };
    }
  }
  close();
  return { from: start > 0 ? s.tokens[start]!.start : 0, to: toEnd ? text.length : s.tokens[end]!.end, marks, before: start > 0, after: !toEnd };
}


// ---- The comparison. ----

/** A small random generator, seeded: the same rows every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = [
  'heron', 'Heron', 'HERON', 'héron', 'He\u0301ron', 'egret', 'the', 'The', 'grey', 'reeds', 'dawn', 'Ærø', 'naïve', 'NAÏVE', 'x2', 'a-b',
  'it’s', '0', '00', '42', 'fish', 'İstanbul', 'ΣΟΦΟΣ', 'σοφος', 'straße', 'STRASSE', 'ﬁsh', '東京', 'кот', 'Кот', '\u{1d400}bold', '\u{1F600}',
  '\ue000priv', 'x\u0301\u0302y', '\u0301lead', '\ud800lone', 'lone\udc00', 'ǅemal', 'Ⅻ', '½', '١٢٣', 'ĳssel',
];
const GAPS = [' ', ' ', ' ', ', ', '. ', ': ', '\n', ' — ', '.', ' (', ') ', '  ', '.\t', ':\r\n', '\u00a0', '_', '\u2028', '…'];

function row(next: () => number, words: number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  let text = next() < 0.2 ? pick(GAPS) : '';
  for (let w = 0; w < words; w++) text += pick(WORDS) + (w < words - 1 || next() < 0.3 ? pick(GAPS) : '');
  return text;
}

function query(next: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const typed = ['heron', 'her', 'h', 'egret', 'the', 'gr', 'naive', 'aero', 'a-b', '0', 'fish', 'fi', 'dawn reeds', 'istanbul', 'σοφοσ', 'strasse', 'straße',
    'кот', '東京', 'e\u0301', 'x', 'lone', 'priv', 'bold', 'absent', 'dzemal', 'ijssel', '12'];
  return Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(typed)).join(' ');
}

const same = (text: string, phrases: readonly Phrase[], cut: boolean): void => {
  expect(snippetOf(text, phrases, cut), `${JSON.stringify(text.slice(0, 200))} / ${JSON.stringify(phrases)} / ${cut}`).toEqual(snippetOfBefore(text, phrases, cut));
};

describe('snippetOf, read by character codes', () => {
  it('makes the same snippet as before on 3,000 random rows and queries, cut and whole', () => {
    const next = random(37);
    for (let i = 0; i < 3_000; i++) {
      const text = row(next, Math.floor(next() * (i % 10 === 0 ? 400 : 60)));
      same(text, queryPhrases(query(next)), next() < 0.3);
    }
  });

  it('the same past SNIPPET_MAX_HITS hits, past SNIPPET_SCAN_CHARS, and with no word at all', () => {
    const next = random(38);
    for (let i = 0; i < 40; i++) {
      const many = `${row(next, 20)} ${'egret heron. '.repeat(SNIPPET_MAX_HITS + Math.floor(next() * 10))}${row(next, 30)}`;
      same(many, queryPhrases(query(next)), next() < 0.5);
      same(many, queryPhrases('egret heron'), false);
    }
    const far = `${'word '.repeat(SNIPPET_SCAN_CHARS / 5 - 1)}wor heron at last`;
    for (const cut of [false, true]) {
      same(far, queryPhrases('heron'), cut);
      same(far, queryPhrases('word'), cut);
      same(`${'-'.repeat(SNIPPET_NO_WORD_CHARS * 3)}`, queryPhrases('x'), cut);
      same('', queryPhrases('x'), cut);
      same(`${'\u0301'.repeat(50)} heron`, queryPhrases('heron'), cut);
    }
    expect(SNIPPET_TOKENS).toBeGreaterThan(0);
  });

  it('the same on long English rows whose words lie early, late or near the end, where the scan stops reading early', () => {
    const next = random(39);
    const english = ['the', 'heron', 'stood', 'in', 'grey', 'reeds', 'at', 'dawn', 'and', 'fish', 'swam', 'by', 'egret', 'her', 'a-b', 'x2', '42', 'The', 'HERON', 'herons'];
    const gaps = [' ', ' ', ' ', ', ', '. ', ': ', '\n', '.\t', ' — ', '’'];
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    const typed = ['heron', 'her', 'egret', 'the', 'gr', 'a-b', 'fish dawn', 'x2', '42', 'absent', 'naive', 'h', 'stood in grey', 'reeds at'];
    for (let i = 0; i < 1_000; i++) {
      const filler = Array.from({ length: 50 + Math.floor(next() * 800) }, () => pick(['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'code', 'block'])).join(pick(gaps));
      const words = Array.from({ length: Math.floor(next() * 40) }, () => pick(english) + pick(gaps)).join('');
      // Where the words are: first, last, both, or a few tokens before the end; sometimes a non-ASCII word late.
      const place = Math.floor(next() * 5);
      let text = place === 0 ? `${words} ${filler}` : place === 1 ? `${filler} ${words}` : place === 2 ? `${words} ${filler} ${words}` : place === 3 ? `${filler} ${words} sit amet.` : `${words} ${filler} naïve ${filler.slice(0, 200)}`;
      if (next() < 0.2) text = text.slice(0, Math.floor(next() * text.length));
      same(text, queryPhrases(pick(typed) + (next() < 0.4 ? ` ${pick(typed)}` : '')), next() < 0.4);
    }
  });
});
