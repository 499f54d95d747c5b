// A search hit's snippet, made here from the first characters of its row instead of by FTS5's snippet(). That
// function scores a window at every hit against every other hit of the row: quadratic in the hits of one row
// (a 100 KB CSV of zeros searched for `0` held the one database connection for seconds, a 100,000-character
// `0 0 0 …` for 27 s). Here the row's words are read in order only until the first SNIPPET_MAX_HITS hits (and
// never past SNIPPET_SCAN_CHARS characters), and the window is chosen among those by FTS5's own rule (most
// distinct words, centred, a sentence's start preferred), so a short row's snippet is the one snippet() made.
// The words are the unicode61 tokenizer's (schema.ts: letters, numbers and private-use characters, combining
// marks inside a word, case and Latin diacritics folded), so a hit here is a hit there.
import { SNIPPET_ELLIPSIS, SNIPPET_TOKENS, queryTerms, type SnippetSegment } from './search-query.js';

/**
 * How far into a row its first hits are looked for: as long as the longest message a person can send
 * (MAX_MESSAGE_CHARS) and the most of an attachment's text the index holds (MAX_INDEXED_ATTACHMENT_CHARS), so
 * every row a person made shows its hit. A longer row (only an import makes one) whose first hit lies further
 * shows its beginning, unmarked. Reading it is linear and stops at the hits: about a millisecond for 100,000.
 */
export const SNIPPET_SCAN_CHARS = 100_000;
/**
 * Hits the window is chosen among: FTS5 compares every hit with every other (the quadratic cost), here the
 * first 64 of a row, 64 × 64 comparisons at most. A snippet shows 14 words, so more hits than that are one
 * window's worth many times over.
 */
export const SNIPPET_MAX_HITS = 64;

/** What a snippet shows of a text with no word in its first SNIPPET_SCAN_CHARS characters: about 14 words' worth. */
export const SNIPPET_NO_WORD_CHARS = 120;

/** One typed word as the index matches it: its tokens, folded; the last word's last token a prefix. */
export interface Phrase {
  tokens: string[];
  prefix: boolean;
}

/** A token as unicode61 reads one (queryPhrases): a letter, number or private-use character, then those or combining marks. */
const TOKEN = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{Co}\p{Mn}]*/gu;
// The same classes, one code point at a time (scan): ASCII from a table, the rest by the expressions.
const TOKEN_START = /^[\p{L}\p{N}\p{Co}]$/u;
const TOKEN_PART = /^[\p{L}\p{N}\p{Co}\p{Mn}]$/u;
const ASCII_WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_WORD[c] = /[0-9A-Za-z]/.test(String.fromCharCode(c)) ? 1 : 0;
const ASCII = /^[\x00-\x7f]*$/;
const MARKS = /\p{Mn}/gu;

/** unicode61's folding (remove_diacritics 2): lower case, the marks a letter decomposes into dropped. */
function fold(word: string): string {
  return ASCII.test(word) ? word.toLowerCase() : word.normalize('NFD').replace(MARKS, '').toLowerCase();
}

/** The phrases of `words` (the words searched, already redacted), as ftsQuery makes them. */
export function queryPhrases(words: string): Phrase[] {
  const terms = queryTerms(words);
  return terms
    // A fresh expression: matchAll starts where the shared one's lastIndex was left.
    .map((term, i) => ({ tokens: Array.from(term.matchAll(new RegExp(TOKEN)), (m) => fold(m[0])), prefix: i === terms.length - 1 }))
    .filter((p) => p.tokens.length > 0);
}

interface Hit {
  phrase: number;
  pos: number;
  size: number;
}

/**
 * A row's first tokens: where each starts and ends in `text`, and each one's folded form, made only when a phrase
 * is compared with it. A string and an object for every token of an 8 KiB head, folded whether or not any word
 * could match it, was most of a search's CPU once its statement was fast (issue 37, finding 7).
 */
class Tokens {
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  /** Folded tokens by position, only those a phrase was compared with (most tokens never are). */
  private readonly folded = new Map<number, string>();

  constructor(private readonly text: string) {}

  get length(): number {
    return this.starts.length;
  }

  push(start: number, end: number): void {
    this.starts.push(start);
    this.ends.push(end);
  }

  /** Token `at` folded is `want` (or begins with it, `prefix`). `want` is a folded token: never empty. */
  is(at: number, want: string, prefix: boolean): boolean {
    const first = this.text.charCodeAt(this.starts[at]!);
    // An ASCII first character folds to itself in lower case: most tokens are told apart without folding them.
    if (first < 128 && want.length > 0 && (first >= 65 && first <= 90 ? first + 32 : first) !== want.charCodeAt(0)) return false;
    let folded = this.folded.get(at);
    if (folded === undefined) {
      folded = fold(this.text.slice(this.starts[at]!, this.ends[at]!));
      this.folded.set(at, folded);
    }
    return prefix ? folded.startsWith(want) : folded === want;
  }
}

/** What a row's first characters hold: its tokens up to the last one a window may need, and the first hits. */
interface Scan {
  tokens: Tokens;
  hits: Hit[];
  /** Token positions that start a sentence (FTS5: the first, and any after `.` or `:` and a blank). */
  sentences: number[];
  /** Every token of the text was read: the window may end at the text's end. */
  whole: boolean;
}

/** ' ', '\t', '\n', '\r': the blanks FTS5's sentence finder skips. */
const isBlankCode = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;

/** FTS5's sentence finder: a token after `.` or `:` and at least one blank. */
function startsSentence(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && isBlankCode(text.charCodeAt(i))) i--;
  if (i === at - 1 || i < 0) return false;
  const c = text.charCodeAt(i);
  return c === 46 || c === 58;
}

function matchesAt(tokens: Tokens, at: number, p: Phrase): boolean {
  for (let k = 0; k < p.tokens.length; k++) {
    if (at + k >= tokens.length) return false;
    if (!tokens.is(at + k, p.tokens[k]!, p.prefix && k === p.tokens.length - 1)) return false;
  }
  return true;
}

/** Where the first token at or after `from` begins (TOKEN's first class), or text.length when none does. */
function tokenStart(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      if (ASCII_WORD[c] === 1) return i;
      i++;
      continue;
    }
    const cp = text.codePointAt(i)!;
    if (TOKEN_START.test(String.fromCodePoint(cp))) return i;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
}

/** Where the token that begins at `start` ends (TOKEN's second class, repeated). */
function tokenEnd(text: string, start: number): number {
  let i = start + (text.codePointAt(start)! > 0xffff ? 2 : 1);
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      if (ASCII_WORD[c] !== 1) return i;
      i++;
      continue;
    }
    const cp = text.codePointAt(i)!;
    if (!TOKEN_PART.test(String.fromCodePoint(cp))) return i;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
}

/**
 * Where a hit could begin: places found in the text at or before the start of every token that could be the first
 * of a phrase. An ASCII token folds to itself in lower case, so one that matches holds a phrase's first (ASCII)
 * token at its start, case aside (`ascii`, made per search); a token with any other character may fold to
 * anything, so any character a token can hold (letter, number, private use, mark) past ASCII is a place too
 * (NON_ASCII_TOKEN_CHAR, one expression for all searches: an expression with Unicode classes is costly to make,
 * and case-insensitive, more so). More places than hits (a word that only contains the letters, any non-ASCII
 * letter) is only less skipped; never fewer.
 */
const NON_ASCII_TOKEN_CHAR = /(?![\x00-\x7f])[\p{L}\p{N}\p{Co}\p{Mn}]/gu;
interface Places {
  /** The phrases' ASCII first tokens, any case; undefined when none is ASCII. */
  ascii: RegExp | undefined;
  /**
   * 1 at the ASCII first characters of the phrases' first tokens (folded: lower case). A token whose first
   * character is ASCII and none of these begins no phrase (Tokens.is would say so of each), and most tokens are such.
   */
  firsts: Uint8Array;
}
const placesByPhrases = new WeakMap<readonly Phrase[], Places>();
function places(phrases: readonly Phrase[]): Places {
  let found = placesByPhrases.get(phrases);
  if (!found) {
    // Folded ASCII tokens are [0-9a-z] only: nothing in them is special in an expression.
    const ascii = [...new Set(phrases.map((p) => p.tokens[0]!).filter((t) => /^[0-9a-z]+$/.test(t)))];
    const firsts = new Uint8Array(128);
    for (const p of phrases) {
      const c = p.tokens[0]!.charCodeAt(0);
      if (c < 128) firsts[c] = 1;
    }
    found = { ascii: ascii.length === 0 ? undefined : new RegExp(ascii.join('|'), 'gi'), firsts };
    placesByPhrases.set(phrases, found);
  }
  return found;
}

/** Where `expr` is next found in `text` at or after `from`; -1 when not before `limit`. */
function foundAt(expr: RegExp, text: string, from: number, limit: number): number {
  expr.lastIndex = from;
  const m = expr.exec(text);
  return m === null || m.index >= limit ? -1 : m.index;
}

/**
 * Times the scan looks for the next place a hit could begin before it gives up looking and reads on: each look
 * is one search of the text, and a text where nearly every token is a place (a non-Latin script) would pay one
 * per token for nothing. 32 is past the hits a short search's rows hold in their first lines.
 */
export const MAX_PLACE_LOOKS = 32;

/**
 * Reads `text`'s tokens in order, stopping SNIPPET_TOKENS tokens after the SNIPPET_MAX_HITS-th hit, or once no
 * hit can begin further on (places()): then only as many tokens more as a hit begun before and its window
 * need. Reading every token of an 8 KiB head whose hits are all in its first lines was most of a short search's
 * snippet cost (issue 37, finding 7). The same hits, sentences and window as reading on to the end: the window is
 * chosen among hits that begin before that point and never reaches past it by SNIPPET_TOKENS or more tokens, so
 * the tokens not read change neither which window nor where it ends (search-snippet.same.test.ts compares).
 */
function scan(text: string, phrases: readonly Phrase[], cut: boolean): Scan {
  const tokens = new Tokens(text);
  const hits: Hit[] = [];
  const sentences: number[] = [];
  const longest = Math.max(1, ...phrases.map((p) => p.tokens.length));
  const where = places(phrases);
  const firsts = where.firsts;
  // A hit is known once its last token is read: it is checked at a position `longest - 1` tokens back.
  const check = (at: number): void => {
    const first = text.charCodeAt(tokens.starts[at]!);
    if (first < 128 && firsts[first >= 65 && first <= 90 ? first + 32 : first] === 0) return;
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
  let full = false;
  let whole = !cut;
  // Past the last place a hit could begin no hit begins: the ones begun before end within `longest` tokens, and a
  // window starts at most at a hit's last token and is SNIPPET_TOKENS long. Each kind of place is looked for again
  // only once the tokens pass the one found (-1: none was, `done`), so each is read through once at most; `next`:
  // the nearer; `settled`: none is left, or the scan gave up looking (MAX_PLACE_LOOKS).
  const other = { at: -1, done: false };
  const ascii = { at: -1, done: where.ascii === undefined };
  const look = (kind: { at: number; done: boolean }, expr: RegExp, from: number): void => {
    if (kind.done || from <= kind.at) return;
    kind.at = foundAt(expr, text, from, limit);
    kind.done = kind.at === -1;
  };
  let next = -1;
  let looks = 0;
  let settled = false;
  for (let start = tokenStart(text, 0); start < text.length; ) {
    if (start >= limit || tokens.length >= stopAt) {
      whole = false;
      break;
    }
    if (!settled && start > next) {
      if (++looks > MAX_PLACE_LOOKS) settled = true;
      else {
        look(other, NON_ASCII_TOKEN_CHAR, start);
        look(ascii, where.ascii!, start);
        next = other.done ? (ascii.done ? -1 : ascii.at) : ascii.done ? other.at : Math.min(other.at, ascii.at);
        if (next === -1) {
          settled = true;
          stopAt = Math.min(stopAt, tokens.length + longest + SNIPPET_TOKENS);
        }
      }
    }
    const end = tokenEnd(text, start);
    const pos = tokens.length;
    if (pos === 0 || startsSentence(text, start)) sentences.push(pos);
    tokens.push(start, end);
    if (pos - longest + 1 >= 0) check(pos - longest + 1);
    if (hits.length >= SNIPPET_MAX_HITS && !full) {
      full = true;
      stopAt = Math.min(stopAt, tokens.length + SNIPPET_TOKENS);
    }
    start = tokenStart(text, end);
  }
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

/** A snippet as places in its text: what it shows, [from, to), and the words found in it. */
export interface Snippet {
  from: number;
  to: number;
  /** The words found, [start, end) each, in order, inside [from, to). */
  marks: Array<[number, number]>;
  /** Text was left out before `from` / after `to`: an ellipsis goes there. */
  before: boolean;
  after: boolean;
}

/**
 * The snippet of the row whose first characters are `text` (`cut`: the row goes on past them) for `phrases`:
 * SNIPPET_TOKENS tokens around its first hits, an ellipsis where the text goes on. No hit among the tokens
 * read (past SNIPPET_SCAN_CHARS, or a word the index folds differently): the row's first tokens, unmarked.
 */
export function snippetOf(text: string, phrases: readonly Phrase[], cut = false): Snippet {
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
    if (open) marks.push([s.tokens.starts[open.from]!, s.tokens.ends[Math.min(open.to, end)]!]);
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
  return { from: start > 0 ? s.tokens.starts[start]! : 0, to: toEnd ? text.length : s.tokens.ends[end]!, marks, before: start > 0, after: !toEnd };
}

/** `snippet` of `text` as the answer's segments: `match` for the words found, ellipses where it was cut. */
export function snippetSegments(text: string, snippet: Snippet): SnippetSegment[] {
  const out: SnippetSegment[] = [];
  const push = (piece: string, match: boolean): void => {
    if (piece === '') return;
    const last = out.at(-1);
    if (last && last.match === match) last.text += piece;
    else out.push({ text: piece, match });
  };
  if (snippet.before) push(SNIPPET_ELLIPSIS, false);
  let at = snippet.from;
  for (const [start, end] of snippet.marks) {
    const from = Math.max(start, at);
    const to = Math.min(end, snippet.to);
    if (to <= from) continue;
    push(text.slice(at, from), false);
    push(text.slice(from, to), true);
    at = to;
  }
  push(text.slice(at, snippet.to), false);
  if (snippet.after) push(SNIPPET_ELLIPSIS, false);
  return out;
}
