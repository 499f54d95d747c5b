// The snippet made in JavaScript from a row's first hits is the one FTS5's snippet() made, for every row of up
// to SNIPPET_MAX_HITS hits (compared with snippet() itself on random rows), and costs nothing like it for a row
// of many thousands.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Db } from './connection.js';
import { ftsQuery, SNIPPET_ELLIPSIS, SNIPPET_TOKENS } from './search-query.js';
import { queryPhrases, SNIPPET_MAX_HITS, SNIPPET_SCAN_CHARS, snippetOf, snippetSegments } from './search-snippet.js';

let dir: string;
let db: Db;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-snippet-'));
  db = await Db.open(path.join(dir, 'fts.db'));
  // The index's own tokenizer (schema.ts).
  await db.exec(`CREATE VIRTUAL TABLE t USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3')`);
});
afterAll(async () => {
  await db.close();
  await fs.rm(dir, { recursive: true, force: true });
});

/** Segments as one string, matches in [brackets]. */
const shown = (segments: { text: string; match: boolean }[]) => segments.map((s) => (s.match ? `[${s.text}]` : s.text)).join('');
const ours = (text: string, words: string, cut = false) => shown(snippetSegments(text, snippetOf(text, queryPhrases(words), cut)));

/** FTS5's snippet() of `text` for `words`, in the same notation. */
async function fts5(text: string, words: string): Promise<string | undefined> {
  await db.run('DELETE FROM t');
  await db.run('INSERT INTO t (rowid, text) VALUES (1, ?)', [text]);
  const row = await db.get<{ s: string }>(`SELECT snippet(t, 0, '[', ']', ?, ?) AS s FROM t WHERE t MATCH ?`, [SNIPPET_ELLIPSIS, SNIPPET_TOKENS, ftsQuery(words)!]);
  return row?.s;
}

/** A small random generator, seeded: the same rows every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = ['heron', 'Heron', 'HERON', 'héron', 'egret', 'the', 'grey', 'reeds', 'dawn', 'Ærø', 'naïve', 'x2', 'a-b', 'it’s', '0', '00', '42', 'fish'];
const GAPS = [' ', ' ', ' ', ', ', '. ', ': ', '\n', ' — ', '.', ' (', ') ', '  '];

describe('snippetOf', () => {
  it('gives what FTS5 snippet() gives, on 400 random rows of up to 60 words and queries of one to three words', async () => {
    const next = random(33);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    let compared = 0;
    for (let i = 0; i < 400; i++) {
      const n = 1 + Math.floor(next() * 60);
      let text = next() < 0.2 ? pick(GAPS) : '';
      for (let w = 0; w < n; w++) text += pick(WORDS) + (w < n - 1 || next() < 0.3 ? pick(GAPS) : '');
      const query = Array.from({ length: 1 + Math.floor(next() * 3) }, () => {
        const w = pick(['heron', 'egret', 'the', 'her', 'he', 'gr', 'naive', 'aero', 'a-b', '0', 'fish', 'dawn reeds']);
        return w;
      }).join(' ');
      const theirs = await fts5(text, query);
      if (theirs === undefined) continue;
      compared++;
      expect(ours(text, query), `${JSON.stringify(text)} / ${query}`).toBe(theirs);
    }
    expect(compared).toBeGreaterThan(150);
  });

  it('marks the words found in the sentence around them, cut with ellipses, a prefix on the last word only', async () => {
    const text = 'Notes from the lake. At dawn the grey heron stood in the reeds without moving at all for an hour or more, then flew.';
    const cases: Array<[string, string]> = [
      ['heron', '…At dawn the grey [heron] stood in the reeds without moving at all for…'],
      ['grey her', '…At dawn the [grey] [heron] stood in the reeds without moving at all for…'],
      ['heron gr', '…At dawn the [grey] [heron] stood in the reeds without moving at all for…'],
      ['flew', '…in the reeds without moving at all for an hour or more, then [flew].'],
    ];
    for (const [query, snippet] of cases) {
      expect(ours(text, query), query).toBe(snippet);
      expect(await fts5(text, query), query).toBe(snippet);
    }
    expect(ours('The HÉRON, naïvely.', 'heron naive')).toBe('The [HÉRON], [naïvely].');
    expect(await fts5('The HÉRON, naïvely.', 'heron naive')).toBe('The [HÉRON], [naïvely].');
  });

  it('reads a row of 50,000 hits only to its first ones: the CSV of zeros takes a few milliseconds', () => {
    const zeros = '0,'.repeat(50_000);
    const started = performance.now();
    const snippet = ours(zeros, '0', false);
    const took = performance.now() - started;
    expect(snippet).toBe(`[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0]${SNIPPET_ELLIPSIS}`);
    // Structural, not a benchmark: FTS5's snippet() took 10-17 s on 32,000 hits; a linear read of the row would
    // still pass, a quadratic one not within 2 s on any machine.
    expect(took).toBeLessThan(2_000);
  });

  it(`looks for hits only in the first SNIPPET_SCAN_CHARS characters, and among the first ${SNIPPET_MAX_HITS}`, () => {
    const far = `${'word '.repeat(SNIPPET_SCAN_CHARS / 5)}heron at last`;
    expect(ours(far, 'heron', true)).toBe(`word word word word word word word word word word word word word word${SNIPPET_ELLIPSIS}`);
    // Two words: the first 64 hits are all of one, so the window with both (later) is not looked for.
    const many = `${'egret '.repeat(SNIPPET_MAX_HITS)}heron egret`;
    expect(ours(many, 'egret heron')).toBe(`[egret] [egret] [egret] [egret] [egret] [egret] [egret] [egret] [egret] [egret] [egret] [egret] [egret] [egret]${SNIPPET_ELLIPSIS}`);
  });

  it('gives a text with no word its first characters, and an empty one nothing', () => {
    expect(ours('', 'x')).toBe('');
    expect(ours('-'.repeat(500), 'x')).toBe(`${'-'.repeat(120)}${SNIPPET_ELLIPSIS}`);
  });
});
