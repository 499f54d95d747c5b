// A message's index row holds no copy of its text when readsBackFromRow says the row's JSON gives it back (schema 8,
// search_texts): SQLite's json_extract of JSON.stringify's output must then be exactly the text, character for
// character, for any text; and where it would not be, readsBackFromRow must say so. Random texts drawn from the
// characters JSON escapes or SQLite could read otherwise, and the strange ones one by one.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Db } from './connection.js';
import { readsBackFromRow } from './session-rows.js';

const POOL = [
  'a', 'Z', '0', ' ', '"', '\\', '/', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u0001', '\u0002', '\u001f', '\u007f',
  'é', 'e\u0301', 'Ω', '中', '\u2028', '\u2029', '\ufeff', '\uffff', '\ufffd', '🦩', '\ud83e', '\udda9', '\ud800', '\udfff', '{', '}', '$',
];
const ROUNDS = 2_000;
let seed = 4;
const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);

let dir: string;
let db: Db;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-search-texts-'));
  db = await Db.open(path.join(dir, 'x.db'));
});
afterAll(async () => {
  await db.close();
  await fs.rm(dir, { recursive: true, force: true });
});

async function readBack(text: string): Promise<unknown> {
  return (await db.get<{ t: unknown }>(`SELECT json_extract(?, '$.content') AS t`, [JSON.stringify({ role: 'user', content: text })]))!.t;
}

describe('readsBackFromRow', () => {
  it('is true only for texts the row gives back exactly', async () => {
    const texts = POOL.map((c) => `x${c}y`);
    for (let i = 0; i < ROUNDS; i++) texts.push(Array.from({ length: 1 + rand(12) }, () => POOL[rand(POOL.length)]).join(''));
    let once = 0;
    for (const text of texts) {
      const back = await readBack(text);
      if (readsBackFromRow(text, text)) {
        expect(back, JSON.stringify(text)).toBe(text);
        once++;
      }
    }
    // Most texts are stored once; the NUL and the lone halves are not.
    expect(once).toBeGreaterThan(texts.length / 4);
    for (const odd of ['a\u0000b', 'a\ud800b', 'b\udfff', '\ud83e']) expect(readsBackFromRow(odd, odd)).toBe(false);
    expect(readsBackFromRow('🦩 heron', '🦩 heron')).toBe(true);
    // Indexing changed it (redacted, cleaned): a copy.
    expect(readsBackFromRow('a\u0001b', 'a b')).toBe(false);
  });
});
