// A search among chosen sessions (an MCP key's granted conversations, issue 39) applies them while the index is
// walked, before the newest MAX_RANKED_ROWS are taken (search.ts grantedWalk): the same rows, order, heads and cap
// as the statements one by one with the chosen ids in the walk (the reference below), over grants of 1, 200 and
// 2,000 ids (most of them of no conversation), a deleted conversation among them, with and without kinds. Where
// the word matches fewer rows than are ranked, that is also what the ids filtered after the ranking answered; where
// it matches more, newer conversations' rows no longer take the chosen ones' places.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionStore } from '../sessions.js';
import { Db, type Queries } from './connection.js';
import { ftsQuery } from './search-query.js';
import { grantedWalk, MAX_RANKED_ROWS, rankNewestWithHeads, rowHead, type RankedHead, type SearchScope } from './search.js';

const PROFILE = `CASE WHEN json_type(s.header, '$.profile') = 'text' AND json_extract(s.header, '$.profile') <> ''
  THEN json_extract(s.header, '$.profile') ELSE 'default' END`;

/** The newest MAX_RANKED_ROWS + 1 matching rows of the chosen sessions (and kinds), ranked from the last on, each
 *  returned row's head read alone: the reference. */
async function reference(q: Queries, match: string, scope: SearchScope, chars: number): Promise<{ rows: RankedHead[]; capped: boolean }> {
  const among = JSON.stringify(scope.sessionIds);
  const kinds = scope.kinds === undefined ? '' : `AND d.kind IN (${scope.kinds.map(() => '?').join(', ')})`;
  const newest = await q.all<{ rowid: number }>(
    `SELECT search.rowid FROM search JOIN search_docs d ON d.id = search.rowid
     WHERE search MATCH ? AND d.session_id IN (SELECT value FROM json_each(?)) ${kinds}
     ORDER BY search.rowid DESC LIMIT ${MAX_RANKED_ROWS + 1}`,
    [match, among, ...(scope.kinds ?? [])],
  );
  const capped = newest.length > MAX_RANKED_ROWS;
  const from = capped ? newest[MAX_RANKED_ROWS - 1]!.rowid : 0;
  const ranked = await q.all<{ id: number; session_id: string; kind: RankedHead['kind']; position: number }>(
    `SELECT d.id, d.session_id, d.kind, d.position
     FROM search
     JOIN search_docs d ON d.id = search.rowid
     JOIN sessions s ON s.id = d.session_id
     WHERE search MATCH ? AND search.rowid >= ? AND d.session_id IN (SELECT value FROM json_each(?)) ${kinds}
       AND json_extract(s.header, '$.deleted_at') IS NULL AND ${PROFILE} = ?
     ORDER BY bm25(search) * CASE d.kind WHEN 'title' THEN 2 ELSE 1 END, d.id
     LIMIT ?`,
    [match, from, among, ...(scope.kinds ?? []), scope.profile, scope.limit],
  );
  const rows: RankedHead[] = [];
  for (const row of ranked) rows.push({ ...row, first: await rowHead(q, row.id, chars) });
  return { rows, capped };
}

const WORDS = ['heron', 'herald', 'teal', 'stream', 'buffer', 'promise', 'resolve', 'install', 'options', 'the', 'of', 'zip'];
let seed = 39;
const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const pick = () => WORDS[Math.floor(rand() * WORDS.length)]!;
const sentence = (n: number) => Array.from({ length: n }, pick).join(' ');

let dir: string;
let store: SessionStore;
/** 200 small conversations, written first (the oldest rows), then 20 long ones. */
const small: string[] = [];
const long: string[] = [];
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-search-granted-'));
  store = new SessionStore(dir);
  await store.load();
  for (let c = 0; c < 200; c++) {
    const { session_id: id } = await store.create({ workspace: '/w', profile: 'default' });
    small.push(id);
    await store.update(id, (s) => {
      s.title = c % 2 === 0 ? sentence(2) : `small ${c}`;
      for (let i = 0; i < 2; i++) s.messages.push({ role: i === 0 ? 'user' : 'assistant', content: `${sentence(3 + (c % 7))} the`, timestamp: i });
    });
  }
  for (let c = 0; c < 20; c++) {
    const { session_id: id } = await store.create({ workspace: '/w', profile: 'default' });
    long.push(id);
    await store.update(id, (s) => {
      s.title = sentence(3);
      // "the" in every row: the long conversations alone hold more than MAX_RANKED_ROWS rows of it.
      for (let i = 0; i < 60; i++) s.messages.push({ role: i % 2 === 0 ? 'user' : 'assistant', content: `the ${sentence(2 + Math.floor(rand() * 20))}`, timestamp: i });
      s.attachments.push({ filename: `${pick()}.txt`, path: path.join(dir, 'attachments', id, 'a.txt'), size: 1, mime: 'text/plain', is_image: false });
    });
  }
  await store.markDeleted(small[3]!);
});
afterAll(async () => {
  await store.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('a search among chosen sessions', () => {
  it('answers what the statements one by one answer with the chosen ids applied before the newest are taken', async () => {
    const db = await Db.openReadOnly(store.file);
    try {
      const none = Array.from({ length: 2_000 - small.length - long.length }, (_, i) => `gone${String(i).padStart(8, '0')}`);
      const grants: Record<string, string[]> = {
        'one old conversation': [small[7]!],
        '200 old conversations, a deleted one among them': [...small],
        '2,000 ids': [...none.slice(0, 900), ...long, ...small, ...none.slice(900)],
        'some of each': [small[0]!, small[3]!, small[150]!, long[0]!, long[19]!],
      };
      const kinds: Array<SearchScope['kinds']> = [undefined, ['title', 'message', 'attachment_text']];
      const queries = ['heron', 'her', 'the', 'stream buffer', 'promise res', 't', 'of the', 'zip', 'small', 'nothing'];
      let compared = 0;
      let capped = 0;
      for (const [name, sessionIds] of Object.entries(grants)) {
        for (const only of kinds) {
          for (const words of queries) {
            for (const limit of [1, 5, 21]) {
              const match = ftsQuery(words)!;
              const scope: SearchScope = { profile: 'default', limit, sessionIds, ...(only ? { kinds: only } : {}) };
              const want = await reference(db, match, scope, 64);
              const got = await rankNewestWithHeads(db, match, scope, 64);
              expect(got, `${name} ${words} ${JSON.stringify(only)} limit ${limit}`).toEqual(want);
              for (const row of got.rows) expect(sessionIds).toContain(row.session_id);
              expect(got.rows.map((r) => r.session_id)).not.toContain(small[3]);
              compared += want.rows.length;
              if (want.capped) capped++;
            }
          }
        }
      }
      expect(compared).toBeGreaterThan(500);
      // Some grants matched more rows than are ranked: the cap is the chosen sessions' own.
      expect(capped).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
  });

  it('walks the index only between the granted rows\' first and last ids, read from search_docs_session', async () => {
    const db = await Db.openReadOnly(store.file);
    try {
      // The grant's span as the rows themselves give it: the small conversations were written first.
      const span = await db.get<{ lo: number; hi: number }>(`SELECT min(id) AS lo, max(id) AS hi FROM search_docs WHERE session_id IN (SELECT value FROM json_each(?))`, [JSON.stringify(small.slice(0, 50))]);
      const all = await db.get<{ hi: number }>('SELECT max(id) AS hi FROM search_docs');
      expect(span!.hi).toBeLessThan(all!.hi);
      await rankNewestWithHeads(db, ftsQuery('the')!, { profile: 'default', limit: 5, sessionIds: small.slice(0, 50) }, 64);
      // The statement's plan: FTS5 takes both bounds on rowid into its walk ('>' and '<' in its index string), and each
      // session's first and last row are two lookups in the (session_id, id) index, not a pass over its rows.
      const walk = (await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${grantedWalk({ profile: 'default', limit: 5, sessionIds: [] }).sql}`, [ftsQuery('the')!])).map((r) => r.detail);
      expect(walk.find((d) => d.startsWith('SCAN f VIRTUAL TABLE'))).toMatch(/INDEX \d+:M\d*(><|<>)/);
      const bounds = walk.filter((d) => d.startsWith('SEARCH d '));
      expect(bounds.length).toBeGreaterThanOrEqual(2);
      for (const d of bounds) expect(d).toBe('SEARCH d USING COVERING INDEX search_docs_session (session_id=?)');
      // A grant of sessions with no rows at all finds nothing (the span is NULL), and says so without a cap.
      expect(await rankNewestWithHeads(db, ftsQuery('the')!, { profile: 'default', limit: 5, sessionIds: ['gone0', 'gone1'] }, 64)).toEqual({ rows: [], capped: false });
    } finally {
      await db.close();
    }
  });

  it('finds the chosen old conversations of a word that more than MAX_RANKED_ROWS newer rows use', async () => {
    const db = await Db.openReadOnly(store.file);
    try {
      const newer = await db.get<{ n: number }>(`SELECT count(*) AS n FROM search_docs d JOIN search ON search.rowid = d.id WHERE search MATCH ? AND d.session_id IN (SELECT value FROM json_each(?))`, [ftsQuery('the')!, JSON.stringify(long)]);
      expect(newer!.n).toBeGreaterThan(MAX_RANKED_ROWS);
      const got = await rankNewestWithHeads(db, ftsQuery('the')!, { profile: 'default', limit: 21, sessionIds: [small[7]!, small[8]!], kinds: ['title', 'message', 'attachment_text'] }, 64);
      // Both messages of each (the word ends every small message), nothing of any other conversation.
      expect(got.rows.map((r) => `${r.session_id}:${r.kind}:${r.position}`).sort()).toEqual([`${small[7]}:message:0`, `${small[7]}:message:1`, `${small[8]}:message:0`, `${small[8]}:message:1`].sort());
      expect(got.capped).toBe(false);
      expect(got.rows.every((r) => r.first?.head.endsWith(' the'))).toBe(true);
    } finally {
      await db.close();
    }
  });
});
