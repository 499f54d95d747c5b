// A hit's snippet checked against the redactor by its own characters widened by a margin, never the whole row:
// what it shows, exactly, and that no part of a key cut by its edge gets out.
import { afterEach, describe, expect, it } from 'vitest';
import { forgetSecrets, rememberSecret } from '../redact/known.js';
import { indexText, SNIPPET_ELLIPSIS } from './db/search-query.js';
import { queryPhrases } from './db/search-snippet.js';
import { redactedSnippet, SNIPPET_HEAD_CHARS, SNIPPET_REDACT_MARGIN_CHARS } from './search-window.js';

afterEach(() => forgetSecrets());

const KEY = 'ghp_Mk4Zt8Qw2Rx6Lp1Nv5Bc9Hd3Jf7Gs0Ya2Ue4';
const shown = (r: ReturnType<typeof redactedSnippet>) => (r.kind === 'shown' ? r.segments.map((s) => (s.match ? `[${s.text}]` : s.text)).join('') : r.kind);
const snippet = (head: string, words: string, cut = false) => redactedSnippet(head, cut, queryPhrases(words));
/** Every run of 8 characters of `key` that `text` shows. */
const partsOf = (key: string, text: string) => Array.from({ length: key.length - 7 }, (_, i) => key.slice(i, i + 8)).filter((p) => text.includes(p));

describe('redactedSnippet', () => {
  it('shows the window of a row as the index holds it, the words found marked', () => {
    const head = `${'filler words here. '.repeat(30)}Then the curlew called twice over the mudflats at low tide before the rain came in.`;
    expect(shown(snippet(head, 'curlew'))).toBe(`${SNIPPET_ELLIPSIS}Then the [curlew] called twice over the mudflats at low tide before the rain${SNIPPET_ELLIPSIS}`);
  });

  it('never shows part of a key the window cuts: the row read whole is found stale, and its redacted text given', () => {
    // The key (unredacted: a row an older Satchel indexed) starts inside the window and runs past its last word.
    const head = `the curlew called ${'one '.repeat(11)}${KEY} and more words after it`;
    const result = snippet(head, 'curlew');
    expect(result.kind).toBe('stale');
    expect(result).toEqual({ kind: 'stale', text: indexText(head) });
    expect(partsOf(KEY, indexText(head))).toEqual([]);
    // The same key before the window's first word, within the margin: seen, stale.
    const before = `${KEY} ${'two '.repeat(40)}the curlew called`;
    expect(snippet(before, 'curlew').kind).toBe('stale');
  });

  it('a key learned after its text was indexed, straddling the window edge: stale, never shown', () => {
    const secret = 'zq81-Hh2k-77Tx-Lm0p-Vv9s-Ap4c';
    const head = `the curlew called ${'one '.repeat(11)}${secret} and on`;
    // Before the key is known, the row is shown as it is.
    expect(snippet(head, 'curlew').kind).toBe('shown');
    rememberSecret(secret);
    const result = snippet(head, 'curlew');
    expect(result.kind).toBe('stale');
    if (result.kind === 'stale') expect(partsOf(secret, result.text)).toEqual([]);
  });

  it('a row longer than what is read, whose window holds what the redactor masks, is not shown', () => {
    const head = `the curlew called ${KEY} ${'word '.repeat(100)}`;
    expect(snippet(head, 'curlew', true)).toEqual({ kind: 'unsure' });
  });

  it('leaves out the part of a blank-less run that crosses the widened edge and reaches into the window', () => {
    // 4,000 characters with no blank: the snippet around `heron` lies inside it, and the redactor (over the
    // window and its margins) sees only a piece of it.
    const left = Array.from({ length: 400 }, (_, i) => `a${i}`).join('.');
    const right = Array.from({ length: 400 }, (_, i) => `b${i}`).join('.');
    const head = `start ${left}.heron.${right} end`;
    expect(left.length).toBeGreaterThan(2 * SNIPPET_REDACT_MARGIN_CHARS);
    expect(shown(snippet(head, 'heron'))).toBe(SNIPPET_ELLIPSIS);
    // A run that begins within the margins is seen whole: shown.
    const short = `start a1.a2.heron.b1.b2 end`;
    expect(shown(snippet(short, 'heron'))).toBe('start a1.a2.[heron].b1.b2 end');
    // Only the side whose run goes on past the margin is left out, up to the run's first blank.
    const oneSide = `start ${left}.heron.b1 b2 b3 b4 b5 b6 b7 b8 b9 b10 b11 b12 b13 b14 end`;
    expect(shown(snippet(oneSide, 'heron'))).toBe(`${SNIPPET_ELLIPSIS} b2 b3 b4 b5 b6 b7${SNIPPET_ELLIPSIS}`);
  });

  it('redacts at most the window and its margins, however long the row: a 4 MiB row costs what a short one does', () => {
    const head = `${'0 '.repeat(SNIPPET_HEAD_CHARS / 2)}`;
    const started = performance.now();
    expect(shown(snippet(head, '0', true))).toBe(`[0] [0] [0] [0] [0] [0] [0] [0] [0] [0] [0] [0] [0] [0]${SNIPPET_ELLIPSIS}`);
    // Structural: the whole row redacted took about a second per 4 MiB; the window alone takes milliseconds.
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
